package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// v2Config is what the clone and fetch rows give git and the helper alike:
// protocol v2 is git's default, and asked for explicitly it cannot fall
// back to v0 without the daemon's log showing it (daemonLog).
var v2Config = []string{"protocol.version=2"}

// partialFilter is the filter of the partial clone row.
const partialFilter = "blob:none"

// daemonLog reads what a git daemon started with --verbose logged: for
// every connection, "[pid] Extended attribute "protocol": version=2" when
// the client asked for protocol v2, then "[pid] Request upload-pack …".
type daemonLog struct {
	path     string
	off      int64 // read so far
	requests int   // upload-pack requests checked, all of them v2
}

// since returns what was logged after the last call.
func (l *daemonLog) since() (string, error) {
	f, err := os.Open(l.path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.Seek(l.off, io.SeekStart); err != nil {
		return "", err
	}
	b, err := io.ReadAll(f)
	l.off += int64(len(b))
	return string(b), err
}

// skip forgets what was logged so far (the setup before a run).
func (l *daemonLog) skip() { l.since() }

// check fails unless what was logged since the last call holds at least
// one upload-pack request and every one asked for protocol version 2.
func (l *daemonLog) check() error {
	text, err := l.since()
	if err != nil {
		return err
	}
	v2 := map[string]bool{}
	var requests []string
	for _, line := range strings.Split(text, "\n") {
		pid, msg, ok := strings.Cut(line, "] ")
		if !ok {
			continue
		}
		switch {
		case msg == `Extended attribute "protocol": version=2`:
			v2[pid] = true
		case strings.HasPrefix(msg, "Request upload-pack"):
			requests = append(requests, pid)
		}
	}
	if len(requests) == 0 {
		return fmt.Errorf("git daemon logged no upload-pack request")
	}
	for _, pid := range requests {
		if !v2[pid] {
			return fmt.Errorf("an upload-pack request did not ask for protocol v2 (git daemon's log: %q)", text)
		}
	}
	l.requests += len(requests)
	return nil
}

// verify checks the repository a run made: every request on protocol v2
// (t.v2), the objects a clone must hold (t.objects), and a filtered clone's
// promisor pack.
func (t *transfer) verify(dest, url string) error {
	if t.v2 != nil {
		if err := t.v2.log.check(); err != nil {
			return fmt.Errorf("%s: %v", url, err)
		}
	}
	if t.objects > 0 {
		out, err := gitOut(dest, "count-objects", "-v")
		if err != nil {
			return err
		}
		n := 0
		for _, line := range strings.Split(out, "\n") {
			k, v, _ := strings.Cut(line, ": ")
			if k == "count" || k == "in-pack" {
				c, _ := strconv.Atoi(v)
				n += c
			}
		}
		if n != t.objects {
			return fmt.Errorf("%s: the clone holds %d objects, want %d", url, n, t.objects)
		}
	}
	if len(t.args) > 0 {
		if p, _ := filepath.Glob(filepath.Join(dest, "objects", "pack", "*.promisor")); len(p) == 0 {
			return fmt.Errorf("%s: the clone %s kept no promisor pack", url, strings.Join(t.args, " "))
		}
	}
	return nil
}

// partialClone measures `git clone --mirror --filter=blob:none` of sel,
// ours and git alternating, from the upstream base/partial.git (sel's refs,
// uploadpack.allowFilter) served by d.
func partialClone(r *runner, c realConfig, src, base string, d *daemon, sel selection, shim, want string) (transfers, error) {
	if err := makeUpstream(src, base, "partial.git", sel); err != nil {
		return transfers{}, err
	}
	if err := run(filepath.Join(base, "partial.git"), nil, "git", "config", "uploadpack.allowFilter", "true"); err != nil {
		return transfers{}, err
	}
	n, err := countObjects(src, sel, selection{}, "--filter="+partialFilter)
	if err != nil {
		return transfers{}, err
	}
	tr := &transfer{r: r, shim: shim, wantMain: want, config: v2Config, v2: d, objects: n,
		args: []string{"--filter=" + partialFilter}}
	return tr.rounds(d.url("partial.git"), c.rounds, "partial clone")
}

// fullClone measures one mirror clone of the history of c.full (a tag of
// src whose history src holds whole) through the helper beside plain git,
// each once, on protocol v2 from git daemon, and checks the helper's peak
// RSS.
func fullClone(r *runner, c realConfig, src string, t *targets) error {
	sel, err := selectRev(src, c.full)
	if err != nil {
		return err
	}
	base := filepath.Join(r.work, "upstreams-full")
	os.RemoveAll(base)
	defer os.RemoveAll(base)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return err
	}
	if err := makeUpstream(src, base, "full.git", sel); err != nil {
		return err
	}
	want, err := gitOut(filepath.Join(base, "full.git"), "rev-parse", "refs/heads/main")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "counting the objects of %s…\n", c.full)
	n, err := countObjects(src, sel, selection{})
	if err != nil {
		return err
	}
	d, shim, err := serve(base, filepath.Join(r.work, "daemon-full.log"), c.helper)
	if err != nil {
		return err
	}
	defer d.stop()
	tr := &transfer{r: r, shim: shim, wantMain: want, config: v2Config, v2: d, objects: n}
	full, err := tr.rounds(d.url("full.git"), 1, "full clone")
	if err != nil {
		return err
	}
	fmt.Printf("\nmirror clone of the whole history of %s (%d objects) from git daemon on 127.0.0.1, protocol v2 (%d upload-pack requests, each asking for version=2 in git daemon's log); once each\n\n", c.full, n, d.log.requests)
	vs := []variant{{name: "ours clone --mirror (full)", base: "git clone --mirror (full)"}, {name: "git clone --mirror (full)"}}
	st := map[string]stats{vs[0].name: summarize(full.ours), vs[1].name: summarize(full.git)}
	table(os.Stdout, vs, st)
	peak := maxKB(full.helperKB)
	fmt.Printf("\ngit-remote-durable's own peak RSS: %.0f MiB\n", peak)
	r0, _ := ratio(st, vs[0].name, vs[1].name)
	t.check("full history "+c.full+": the clone completes", true, fmt.Sprintf("%d objects, %.2f× git clone --mirror", n, r0))
	t.check("helper peak RSS ≤ 128 MiB (full history)", peak <= 128, fmt.Sprintf("%.0f MiB", peak))
	return nil
}

// maxKB is the largest of sizes in KiB, in MiB.
func maxKB(kb []int64) float64 {
	var m int64
	for _, k := range kb {
		m = max(m, k)
	}
	return float64(m) / 1024
}
