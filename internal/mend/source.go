package mend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/nofollow"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// fetch fetches ids again by id from the upstream o.URL, in this process,
// as the helper's sessions fetch: each object checked as the repository's
// fetches check theirs, kept in packs of its own written durably. It
// returns the packs written, the ids none of them holds, and why the
// upstream could not be asked, in git's words.
//
// Where whole says so, or where what comes by id passes half of what the
// repository's packs hold (a reclone's bytes: Fetcher.Budget), everything
// the upstream's refs reach is fetched instead, once (fetchWhole), and only
// what that does not bring (a local branch's commits) by id.
func (m *mender) fetch(o Options, ids []object.ID, refIDs map[object.ID]bool, whole bool, packBytes int64) (packs []string, left []object.ID, err error) {
	if o.URL == "" {
		return nil, ids, errors.New("no remote to fetch the broken objects from")
	}
	src, err := m.dial(o)
	if err != nil {
		return nil, ids, err
	}
	defer src.close()
	f := src.f
	open := func() (*upstream.Upload, error) { return src.rem.OpenUpload(nil) }
	if !whole {
		f.Budget = packBytes / 2
		left, err = m.byID(f, open, ids, refIDs)
		if err == nil || !errors.Is(err, errOverBudget) {
			if err != nil {
				err = src.say(err)
			}
			return f.Written(), left, err
		}
		f.Budget = 0
	}
	if m.onWhole != nil {
		m.onWhole()
	}
	// Nothing of what a whole fetch is unpacked beside is kept: the
	// layouts of a large pack held under the soft memory limit make the
	// collector run without pause (a pack cut to 60 %: the mend 9.4 s
	// where a durable clone takes 6.1 s).
	clear(m.layouts)
	p, err := m.fetchWhole(src.rem, f)
	if err != nil {
		return f.Written(), ids, src.say(err)
	}
	f.packs = append(f.packs, p)
	m.whole = p
	if ids, err = m.stillMissing(ids); err != nil {
		return f.Written(), ids, err
	}
	if left, err = m.byID(f, open, ids, refIDs); err != nil {
		err = src.say(err)
	}
	return f.Written(), left, err
}

// source is the upstream a mend fetches from, open: a Fetcher into the
// mend's store, under a watchdog of an upstream that stops answering.
type source struct {
	rem   *upstream.Remote
	f     *Fetcher
	red   *transport.Redactor
	wd    *watchdog
	close func()
}

// dial opens the upstream o.URL as the helper's sessions do (git's -c
// values, its protocol policy, no prompt), with a Fetcher of packs of
// their own into the mend's store, each object checked as the
// repository's fetches check theirs.
func (m *mender) dial(o Options) (*source, error) {
	url := upstreamURL(o.URL, m.r.GitDir)
	ctx, cancel := context.WithCancel(m.ctx)
	wd := watch(o.Idle, cancel)
	red := &transport.Redactor{}
	env := proc.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string {
		if k == "GIT_TERMINAL_PROMPT" {
			return "0" // no one is there to answer
		}
		return o.Getenv(k)
	}}
	cfg := func() (repo.Config, error) { return m.r.Config, nil }
	// A trace goes to a file only: the runner's stderr is its report.
	trace := upstream.OpenPacketTrace(o.Getenv, io.Discard, red.Scrub)
	s := &source{red: red, wd: wd, close: func() {
		trace.Close()
		wd.stop()
		cancel()
	}}
	rem, err := upstream.Open(ctx, url, upstream.Options{Env: env, Config: cfg, Stderr: io.Discard, Redactor: red, Trace: trace})
	if err != nil {
		s.close()
		return nil, errors.New(red.Scrub(say(err, transport.Anonymize(url), nil)))
	}
	strict, err := m.r.Config.FsckOptions(m.r.Format, env.Getenv, io.Discard)
	if err != nil {
		s.close()
		return nil, err
	}
	s.rem = rem
	s.f = &Fetcher{Ctx: ctx, Store: m.t, Strict: strict, URL: rem.URL, Messages: io.Discard, Packs: true, Chunk: chunk,
		Describe: func(err error) string { return say(err, rem.URL, rem) }, Alive: wd.alive}
	if o.Stats != "" {
		s.f.Account = func(st objstore.Stats, err error) { appendStats(o.Stats, m.r.GitDir, rem.URL, st, err) }
	}
	return s, nil
}

// say is err, an upstream's failure, in git's words, with what the
// watchdog knows of it, and no secret of the URL's.
func (s *source) say(err error) error {
	return errors.New(s.red.Scrub(say(s.wd.explain(err, s.rem.URL), s.rem.URL, s.rem)))
}

// byID fetches ids by id through f: the broken copies, then the objects
// refs name (refIDs) with haves (fetchTips). It returns what none brought.
func (m *mender) byID(f *Fetcher, open func() (*upstream.Upload, error), ids []object.ID, refIDs map[object.ID]bool) ([]object.ID, error) {
	ids, tips := m.apart(ids, refIDs)
	left, err := f.Rounds(open, ids)
	if err == nil && len(tips) > 0 {
		var still []object.ID
		still, err = m.fetchTips(f, open, tips, refIDs)
		left = append(left, still...)
	}
	return left, err
}

// stillMissing returns which of ids no pack of the store holds whole:
// what a fetch of everything did not bring.
func (m *mender) stillMissing(ids []object.ID) ([]object.ID, error) {
	fetched, closeFetched := openFetched([]string{m.whole}, m.r.Format)
	defer closeFetched()
	var left []object.ID
	for _, id := range ids {
		if !fetched.has(id) {
			left = append(left, id)
		}
	}
	return left, nil
}

// apart splits ids into those not in refIDs and those in it.
func (m *mender) apart(ids []object.ID, refIDs map[object.ID]bool) (copies, tips []object.ID) {
	for _, id := range ids {
		if refIDs[id] {
			tips = append(tips, id)
		} else {
			copies = append(copies, id)
		}
	}
	return copies, tips
}

// fetchTips fetches the missing objects of refs, tips, with the other
// refs' readable values as haves, so that each comes without what its
// parents hold; then, as long as a walk from them finds objects missing
// below (what a crash took with the tip: its trees and blobs), those, a
// few rounds at most. What the haves left out (a want a have reaches) is
// asked for again without them. It returns what none brought.
func (m *mender) fetchTips(f *Fetcher, open func() (*upstream.Upload, error), tips []object.ID, refIDs map[object.ID]bool) ([]object.ID, error) {
	f.Haves = m.readableTips(refIDs)
	defer func() { f.Haves = nil }()
	want := tips
	var left []object.ID
	for range rounds {
		still, err := f.Rounds(open, want)
		if err != nil {
			return append(left, still...), err
		}
		if len(still) > 0 {
			f.Haves = nil
			if still, err = f.Rounds(open, still); err != nil {
				return append(left, still...), err
			}
			f.Haves = m.readableTips(refIDs)
		}
		left = append(left, still...)
		if want = m.missingBelow(tips, f.Haves); len(want) == 0 {
			break
		}
	}
	return left, nil
}

// missingBelow lists the objects a walk from tips down to haves finds
// missing (git rev-list --missing=print).
func (m *mender) missingBelow(tips, haves []object.ID) []object.ID {
	var in strings.Builder
	for _, id := range tips {
		in.WriteString(id.String() + "\n")
	}
	for _, id := range haves {
		in.WriteString("^" + id.String() + "\n")
	}
	out, err := m.git(m.ctx, []byte(in.String()), "rev-list", "--objects", "--no-object-names", "--missing=print", "--stdin")
	if err != nil {
		return nil
	}
	var missing []object.ID
	for _, l := range strings.Split(string(out), "\n") {
		if hex, ok := strings.CutPrefix(l, "?"); ok {
			if id, err := object.ParseID(hex); err == nil {
				missing = append(missing, id)
			}
		}
	}
	return missing
}

// readableTips are the values of the repository's refs that it can read
// (loose.Store.Present), and the values packed-refs still holds of refs a
// loose one overrides (a ref's value before its last update, often the
// parent of a tip a crash lost), but those of missing: the haves of a
// ref's missing object.
func (m *mender) readableTips(missing map[object.ID]bool) []object.ID {
	values, _, err := m.r.RefValues(m.ctx)
	if err != nil {
		return nil
	}
	if b, err := nofollow.ReadFile(filepath.Join(m.r.CommonDir, "packed-refs")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if hex, _, ok := strings.Cut(l, " "); ok && validID(hex) {
				if id, err := object.ParseID(hex); err == nil {
					values = append(values, id)
				}
			}
		}
	}
	seen := map[object.ID]bool{}
	var tips []object.ID
	for _, v := range values {
		if seen[v] || missing[v] {
			continue
		}
		seen[v] = true
		if ok, err := m.t.Store.Present(v); ok && err == nil {
			tips = append(tips, v)
		}
	}
	return tips
}

// chunk is how many objects one request of a mend asks for.
const chunk = 10000

// upstreamURL is the address url of a remote of the repository whose git
// directory is gitDir, without durable::, a path on this machine made
// absolute as git reads it: from the work tree's top, or the git
// directory of a bare repository.
func upstreamURL(url, gitDir string) string {
	url = strings.TrimPrefix(url, "durable::")
	if !local(url) || filepath.IsAbs(url) {
		return url
	}
	return filepath.Join(repo.WorkTop(gitDir), url)
}

// local reports whether url names a repository on this machine by path
// (no scheme, not scp-like host:path).
func local(url string) bool {
	if strings.Contains(url, "://") {
		return false
	}
	colon := strings.IndexByte(url, ':')
	slash := strings.IndexByte(url, '/')
	return colon < 0 || slash >= 0 && slash < colon
}

// say is a failure of the upstream at url (r, once open) in git's words.
func say(err error, url string, r *upstream.Remote) string {
	if msg, ok := r.Failure(); ok {
		return msg
	}
	var se *unpack.StrictError
	var oe *OpenError
	switch {
	case errors.As(err, &se):
		return se.Msg
	case errors.As(err, &oe):
		return say(oe.Err, url, r)
	}
	if msg, ok := transport.Describe(err, url); ok {
		return msg
	}
	if msg, ok := upstream.RemoteError(err); ok {
		return msg
	}
	if lines, _ := unpack.Describe(err); len(lines) > 0 && !errors.Is(err, upstream.ErrJunk) {
		text := make([]string, len(lines))
		for i, l := range lines {
			text[i] = l.Text
		}
		return fmt.Sprintf("bad pack from '%s': %s", url, strings.Join(text, ": "))
	}
	return mask.OneLine(err.Error())
}

// appendStats adds the line of an answer a mend fetched to the statistics
// file path, as the helper's fetch batches add theirs.
func appendStats(path, gitDir, url string, s objstore.Stats, err error) {
	line := struct {
		URL        string `json:"url"`
		Repository string `json:"repository"`
		Op         string `json:"op"`
		objstore.Stats
		Error string `json:"error,omitempty"`
	}{URL: url, Repository: gitDir, Op: "mend", Stats: s}
	if err != nil {
		line.Error = mask.OneLine(err.Error())
	}
	if b, jerr := json.Marshal(line); jerr == nil && filepath.IsAbs(path) {
		nofollow.Append(path, append(b, '\n'), 0o666)
	}
}
