package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/object"
)

// sendPack sends the updates through the receive-pack session, with the
// pack of what the upstream lacks, and records each update's status from
// the upstream's report.
func (h *helper) sendPack(rp *upstream.Receive, ups []*update) error {
	rl := h.relay()
	defer rl.flush()
	req := &upstream.PushRequest{
		Quiet: !h.set.progress || h.set.verbosity == 0, Atomic: h.set.atomic, Progress: rl,
	}
	needPack := false
	for _, u := range ups {
		req.Commands = append(req.Commands, upstream.Command{Name: u.dst, Old: u.old, New: u.new})
		needPack = needPack || !u.new.IsZero()
	}
	var pack *packWriter
	if needPack {
		var err error
		if pack, err = h.packObjects(ups, rp.Advertisement(), rp.Supports("ofs-delta")); err != nil {
			return err
		}
		req.Pack = pack
	}
	rep, err := rp.Push(req)
	if pack != nil {
		if perr := pack.wait(); perr != nil && err == nil {
			err = perr
		}
	}
	switch {
	case rep.Err != nil:
		return rep.Err
	case !rep.Read && err == nil:
		err = fmt.Errorf("'%s' sent no report of the push", h.url)
	}
	if !rep.Read {
		return err
	}
	if rep.Unpack != "ok" {
		fmt.Fprintf(h.errw, "error: remote unpack failed: %s\n", mask.Printable(mask.OneLine(rep.Unpack)))
	}
	for _, u := range ups {
		st, ok := rep.Statuses[u.dst]
		switch {
		case rep.Unpack != "ok":
			u.status = "unpacker error"
		case !ok:
			u.status = "expecting report"
		case st.OK:
			u.ok = true
		default:
			u.status = rejection(st.Reason)
		}
	}
	return nil
}

// packWriter is git pack-objects writing the pack of a push.
type packWriter struct {
	io.ReadCloser
	cmd    *exec.Cmd
	stderr bytes.Buffer
}

// packObjects starts git pack-objects --stdout --thin --revs for the new
// values, leaving out everything the upstream's refs reach that is here:
// the pack of what the upstream lacks, thin (deltas against objects it
// has), several times faster than an encoder of go-git's.
func (h *helper) packObjects(ups []*update, adv *upstream.Advertisement, ofs bool) (*packWriter, error) {
	var revs strings.Builder
	for _, u := range ups {
		if !u.new.IsZero() {
			revs.WriteString(u.new.String() + "\n")
		}
	}
	var olds []string
	for _, id := range adv.Refs {
		if !id.IsZero() {
			olds = append(olds, id.String())
		}
	}
	for _, u := range ups {
		if !u.old.IsZero() {
			olds = append(olds, u.old.String())
		}
	}
	present, err := h.present(olds)
	if err != nil {
		return nil, err
	}
	for _, id := range present {
		revs.WriteString("^" + id + "\n")
	}
	args := []string{"pack-objects", "--stdout", "--thin", "--revs", "--all-progress-implied"}
	if ofs {
		args = append(args, "--delta-base-offset")
	}
	if h.set.progress && h.set.verbosity > 0 {
		args = append(args, "--progress")
	} else {
		args = append(args, "-q")
	}
	p := &packWriter{cmd: exec.CommandContext(h.ctx, "git", args...)}
	p.cmd.Stdin = strings.NewReader(revs.String())
	if h.set.progress && h.set.verbosity > 0 {
		p.cmd.Stderr = io.MultiWriter(h.errw, &limited{w: &p.stderr, n: 4096})
	} else {
		p.cmd.Stderr = &limited{w: &p.stderr, n: 4096}
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot run git pack-objects: %w", err)
	}
	p.ReadCloser = out
	return p, nil
}

// wait waits for pack-objects and returns its failure.
func (p *packWriter) wait() error {
	io.Copy(io.Discard, p.ReadCloser)
	if err := p.cmd.Wait(); err != nil {
		msg := strings.TrimSpace(p.stderr.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		if msg == "" {
			msg = err.Error()
		}
		return errors.New("git pack-objects failed: " + strings.TrimPrefix(msg, "fatal: "))
	}
	return nil
}

// present returns the ids of the list that are in the local repository.
func (h *helper) present(ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := repo.Git(h.ctx, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	var have []string
	seen := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if _, err := object.ParseID(l); err == nil && !seen[l] {
			seen[l] = true
			have = append(have, l)
		}
	}
	return have, nil
}

// limited keeps the first n bytes written to it.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// statusWords are the reasons that git's transport-helper.c
// (push_update_ref_status) takes, once unquoted, for a status of its own
// rather than for the upstream's words: "error <ref> up to date" is a
// success there.
var statusWords = map[string]bool{
	"no match": true, "up to date": true, "non-fast forward": true, "already exists": true,
	"fetch first": true, "needs force": true, "stale info": true,
	"remote ref updated since checkout": true, "forced update": true, "expecting report": true,
}

// rejection is the reason the helper gives git for a ref the upstream
// refused: the upstream's words, which git prints as
// "! [remote rejected] <ref> (<reason>)" like its own send-pack — in
// double quotes when they are one of git's status words, so that git never
// reads a refusal as a status.
func rejection(reason string) string {
	if statusWords[strings.TrimSpace(reason)] {
		return `"` + reason + `"`
	}
	return reason
}
