package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// makeUpstream makes the bare repository base/name, which borrows the
// objects of src (alternates) and has the refs of s.
func makeUpstream(src, base, name string, s selection) error {
	dir := filepath.Join(base, name)
	os.RemoveAll(dir)
	if err := run("", nil, "git", "init", "-q", "--bare", "-b", "main", dir); err != nil {
		return err
	}
	alt := filepath.Join(src, "objects") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "objects", "info", "alternates"), []byte(alt), 0o644); err != nil {
		return err
	}
	var in strings.Builder
	for _, ref := range s.refs {
		fmt.Fprintf(&in, "create %s\n", ref)
	}
	return run(dir, strings.NewReader(in.String()), "git", "update-ref", "--stdin")
}

// helperShim makes a directory holding a git-remote-durable that runs the
// real one under /usr/bin/time, appending its peak RSS (KiB) to the file
// named by $GIT_DURABLE_BENCH_RSS: the helper's own, apart from git's.
func helperShim(dir, helper string) (string, error) {
	shim := filepath.Join(dir, "shim")
	if err := os.MkdirAll(shim, 0o755); err != nil {
		return "", err
	}
	script := "#!/bin/sh\nexec "
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		script += `/usr/bin/time -f %M -a -o "$GIT_DURABLE_BENCH_RSS" `
	}
	script += fmt.Sprintf("'%s' \"$@\"\n", helper)
	return shim, os.WriteFile(filepath.Join(shim, "git-remote-durable"), []byte(script), 0o755)
}

// transfer is a clone or fetch measured through git, plain or durable::.
type transfer struct {
	r        *runner
	shim     string   // directory with the helper shim
	base     string   // a mirror clone of the "from" upstream, for fetches
	wantMain string   // the commit refs/heads/main must reach
	config   []string // "key=value" for git and the helper alike (protocol.version=2)
	args     []string // more arguments of git clone (--filter=blob:none)
	objects  int      // the objects a clone must hold (0: not checked)
	// v2, with a daemon started with a log, has every run checked to have
	// asked for protocol version 2 in each of its requests.
	v2 *daemon
}

// run measures one clone (base == "") or fetch into a fresh repository on
// the disk under test, and returns the sample and the helper's peak RSS.
func (t *transfer) run(url string, ours bool) (sample, int64, error) {
	r := t.r
	r.n++
	parent := r.work
	if r.runs != "" {
		parent = r.runs
	}
	dest := filepath.Join(parent, fmt.Sprintf("run%04d", r.n))
	r.last = dest
	if ours {
		url = "durable::" + url
	}
	cmd, err := t.command(url, dest)
	if err != nil {
		return sample{}, 0, err
	}
	rss := filepath.Join(r.work, "helper-rss.txt")
	stats := filepath.Join(r.work, "helper-stats.txt")
	os.Remove(rss)
	os.Remove(stats)
	cmd.Env = append(os.Environ(), "PATH="+t.shim+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_DURABLE_BENCH_RSS="+rss, "GIT_REMOTE_DURABLE_STATS="+stats,
		"GIT_CONFIG_PARAMETERS="+configParams(append([]string{"gc.auto=0", "maintenance.auto=false"}, t.config...)))
	if r.force {
		cmd.Env = append(cmd.Env, "GIT_DURABLE_FORCE_BATCH=1")
	}
	syncAll()
	time.Sleep(time.Second)
	if t.v2 != nil {
		t.v2.log.skip() // what came before this run
	}
	s, err := r.timed(cmd)
	if err != nil {
		return s, 0, fmt.Errorf("%s: %v", strings.Join(cmd.Args, " "), err)
	}
	if got, _ := gitOut(dest, "rev-parse", "refs/heads/main"); got != t.wantMain {
		return s, 0, fmt.Errorf("%s: main is %q, want %s", url, got, t.wantMain)
	}
	if err := t.verify(dest, url); err != nil {
		return s, 0, err
	}
	if b, err := os.ReadFile(stats); err == nil {
		s.work = parseWork(string(b))
	}
	return s, peakKB(rss), nil
}

// command returns the git command of the transfer from url into dest: a
// mirror clone, or a fetch into a copy of base.
func (t *transfer) command(url, dest string) (*exec.Cmd, error) {
	if t.base == "" {
		return exec.Command("git", append(append([]string{"clone", "--mirror", "-q"}, t.args...), url, dest)...), nil
	}
	if err := run("", nil, "cp", "-a", t.base, dest); err != nil {
		return nil, err
	}
	if err := run(dest, nil, "git", "remote", "set-url", "origin", url); err != nil {
		return nil, err
	}
	cmd := exec.Command("git", "fetch", "-q")
	cmd.Dir = dest
	return cmd, nil
}

// peakKB is the largest of the peak RSS figures (KiB) that the helper
// shim appended to the file path: 0 when there are none.
func peakKB(path string) int64 {
	var kb int64
	b, _ := os.ReadFile(path)
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.ParseInt(f, 10, 64)
		kb = max(kb, n)
	}
	return kb
}

// transfers are the samples of one kind of transfer, ours and git.
type transfers struct {
	ours, git []sample
	helperKB  []int64 // the helper's own peak RSS, for every run of ours
}

// rounds measures ours and git alternating, each rounds times.
func (t *transfer) rounds(url string, n int, kind string) (transfers, error) {
	var out transfers
	bar := newBar(2 * n)
	defer bar.Finish()
	for i := 0; i < n; i++ {
		for k := 0; k < 2; k++ {
			ours := (i+k)%2 == 0
			s, kb, err := t.run(url, ours)
			os.RemoveAll(t.r.last)
			if err != nil {
				return out, fmt.Errorf("%s: %v", kind, err)
			}
			if ours {
				out.ours = append(out.ours, s)
				out.helperKB = append(out.helperKB, kb)
			} else {
				out.git = append(out.git, s)
			}
			bar.Add(1)
		}
	}
	return out, nil
}

// countObjects counts the objects reachable from the refs of to and not
// from those of from, in repo: what the fetch brings. More arguments of
// rev-list (--filter=blob:none) may be given.
func countObjects(repo string, to, from selection, args ...string) (int, error) {
	var in strings.Builder
	for _, ref := range to.refs {
		_, id, _ := strings.Cut(ref, " ")
		in.WriteString(id + "\n")
	}
	for _, ref := range from.refs {
		_, id, _ := strings.Cut(ref, " ")
		in.WriteString("^" + id + "\n")
	}
	cmd := exec.Command("git", append([]string{"rev-list", "--objects", "--stdin"}, args...)...)
	cmd.Dir, cmd.Stdin = repo, strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%v: %s", err, ee.Stderr)
		}
		return 0, fmt.Errorf("rev-list: %v", err)
	}
	return strings.Count(string(out), "\n"), nil
}
