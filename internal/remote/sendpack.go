package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
)

// sendPack sends the updates through the receive-pack session, with the
// pack of what the upstream lacks, and records each update's status from
// the upstream's report.
func (h *helper) sendPack(rp *receive, ups []*update) error {
	caps := rp.refs.Capabilities
	req := packp.NewReferenceUpdateRequestFromCapabilities(caps)
	set := func(c capability.Capability) {
		if caps.Supports(c) && !req.Capabilities.Supports(c) {
			req.Capabilities.Set(c)
		}
	}
	set(capability.Sideband64k)
	if !h.set.progress || h.set.verbosity == 0 {
		set(capability.Quiet)
	}
	if h.set.atomic {
		set(capability.Atomic)
	}
	rl := h.relay()
	defer rl.flush()
	req.Progress = rl
	needPack := false
	for _, u := range ups {
		req.Commands = append(req.Commands, &packp.Command{Name: plumbing.ReferenceName(u.dst), Old: u.old, New: u.new})
		needPack = needPack || !u.new.IsZero()
	}
	var pack *packWriter
	if needPack {
		var err error
		if pack, err = h.packObjects(ups, rp.refs, caps.Supports(capability.OFSDelta)); err != nil {
			return err
		}
		req.Packfile = pack
	}
	rep := newReport(names(ups), func(name string) bool {
		_, ok := rp.refs.References[name]
		return ok
	}, h.errw)
	if s, ok := rp.sess.(interface{ setReport(func(io.Reader) error) }); ok {
		s.setReport(rep.decode)
	} else if h.tap != nil {
		// The HTTP session's POST to git-receive-pack: the body as sent.
		h.tap.report = func(body io.Reader) error { return rep.decode(demux(body, req)) }
		defer func() { h.tap.report = nil }()
	}
	gogit, err := rp.sess.ReceivePack(h.ctx, req)
	if pack != nil {
		if perr := pack.wait(); perr != nil && err == nil {
			err = perr
		}
	}
	switch {
	case rep.err != nil:
		return rep.err
	case !rep.read && gogit != nil:
		rep.adopt(gogit)
	case !rep.read && err == nil:
		err = fmt.Errorf("'%s' sent no report of the push", h.url)
	}
	if !rep.read {
		return err
	}
	if rep.unpack != "ok" {
		fmt.Fprintf(h.errw, "error: remote unpack failed: %s\n", printable(oneLine(rep.unpack)))
	}
	for _, u := range ups {
		st, ok := rep.statuses[u.dst]
		switch {
		case rep.unpack != "ok":
			u.status = "unpacker error"
		case !ok:
			u.status = "expecting report"
		case st.ok:
			u.ok = true
		default:
			u.status = rejection(st.reason)
		}
	}
	return nil
}

// demux takes the report out of the side-band of a receive-pack's answer
// to req, when req asked for one (sendPack asks for side-band-64k only);
// the progress goes to req.Progress.
func demux(r io.Reader, req *packp.ReferenceUpdateRequest) io.Reader {
	if !req.Capabilities.Supports(capability.Sideband64k) {
		return r
	}
	d := sideband.NewDemuxer(sideband.Sideband64k, r)
	d.Progress = req.Progress
	return d
}

// names returns the refs the updates change.
func names(ups []*update) []string {
	out := make([]string, len(ups))
	for i, u := range ups {
		out[i] = u.dst
	}
	return out
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
// has), several times faster than go-git's encoder.
func (h *helper) packObjects(ups []*update, adv *packp.AdvRefs, ofs bool) (*packWriter, error) {
	var revs strings.Builder
	for _, u := range ups {
		if !u.new.IsZero() {
			revs.WriteString(u.new.String() + "\n")
		}
	}
	var olds []string
	for _, id := range adv.References {
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
	out, err := runGit(h.ctx, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	var have []string
	seen := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		if plumbing.IsHash(l) && !seen[l] {
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
