//go:build linux

package integration

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestMirrorRunnerDurable: "ok" means durable. A tree adopted as it was —
// a plain mirror, one with no remote, one whose core.fsync turns syncing
// off — beside a mirror through durable::: only that one is "ok"; each of
// the others is updated but gets a warning line naming why it is not
// durable, and git_durable_update_durable 0. With --require-durable they
// fail, exit 1. A mirror that never succeeded has a last success of 0.
func TestMirrorRunnerDurable(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	durable, plain, none, unsynced, gone := filepath.Join(tree, "durable.git"), filepath.Join(tree, "plain.git"),
		filepath.Join(tree, "none.git"), filepath.Join(tree, "unsynced.git"), filepath.Join(tree, "gone.git")
	for _, dir := range []string{durable, unsynced, gone} {
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, dir)
	}
	gittest.Git(t, env, base, "clone", "-q", "--mirror", up, plain)
	gittest.Git(t, env, base, "init", "-q", "--bare", none)
	gittest.Git(t, env, unsynced, "config", "core.fsync", "none")
	gittest.Git(t, env, gone, "config", "remote.origin.url", "durable::file://"+filepath.Join(base, "nothing.git"))
	advance(t, env, up, 1, "d1")
	metrics := filepath.Join(base, "m.prom")
	c := runner(t, env, "--metrics", metrics, tree)
	want := map[string]string{
		durable:  " ok ",
		plain:    " warning ",
		none:     " warning ",
		unsynced: " warning ",
		gone:     " failed ",
	}
	why := map[string]string{
		plain:    "updated, not durable: remote 'origin' fetches without durable:: (--convert converts it)",
		none:     "updated, not durable: no remote to fetch from",
		unsynced: "updated, not durable: objects are written without a flush (none)",
	}
	m := string(readFile(t, metrics))
	for dir, status := range want {
		l := runnerLine(t, c, dir)
		if !strings.Contains(l, status) || !strings.Contains(l, why[dir]) {
			t.Errorf("%s: %q, want %q and %q", filepath.Base(dir), l, status, why[dir])
		}
		d := "0"
		if dir == durable {
			d = "1"
		}
		if !strings.Contains(m, series("git_durable_update_durable", tree, dir)+d+"\n") {
			t.Errorf("%s: no durable %s in\n%s", filepath.Base(dir), d, m)
		}
	}
	if !strings.Contains(m, series(lastSuccess, tree, gone)+"0\n") {
		t.Errorf("a mirror that never succeeded has no last success of 0:\n%s", m)
	}
	if a, b := refs(t, env, plain), refs(t, env, up); a != b {
		t.Errorf("the plain mirror was not updated:\n%s", a)
	}
	c = runner(t, env, "--require-durable", tree)
	if c.Code != 1 || !strings.Contains(string(c.Stderr), "error: 4 of 5 repositories failed to update") {
		t.Errorf("--require-durable: exit %d\n%s", c.Code, c.Stderr)
	}
	for dir, w := range why {
		if l := runnerLine(t, c, dir); !strings.Contains(l, " failed ") || !strings.Contains(l, strings.TrimPrefix(w, "updated, ")) {
			t.Errorf("--require-durable, %s: %q", filepath.Base(dir), l)
		}
	}
}

// TestMirrorRunnerTwoFiles: two runners, each on its own tree, write their
// metrics files into one textfile directory; node_exporter reads both
// without an error (their aggregate series are told apart by the runner
// label, the --metrics-label or the roots), and promtool reads each. A
// temporary file a killed runner left there is swept.
func TestMirrorRunnerTwoFiles(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	dir := filepath.Join(base, "textfile")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, filepath.Join(base, name, "m.git"))
	}
	// What a runner killed while it wrote its file left, an hour ago.
	left := filepath.Join(dir, ".tmp-a.prom-123")
	gittest.WriteFile(t, dir, ".tmp-a.prom-123", "half")
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(left, old, old); err != nil {
		t.Fatal(err)
	}
	mustRun(t, runner(t, env, "--metrics", filepath.Join(dir, "a.prom"), filepath.Join(base, "a")), "runner a")
	if _, err := os.Lstat(left); err == nil {
		t.Errorf("%s was left", left)
	}
	mustRun(t, runner(t, env, "--metrics", filepath.Join(dir, "b.prom"), "--metrics-label", "second", filepath.Join(base, "b")), "runner b")
	for _, f := range []string{"a.prom", "b.prom"} {
		promtoolCheck(t, string(readFile(t, filepath.Join(dir, f))))
	}
	s := scrapeClean(t, dir)
	for _, want := range []string{`git_durable_update_failed{runner="` + filepath.Join(base, "a") + `"} 0`, `git_durable_update_failed{runner="second"} 0`} {
		if !strings.Contains(s, want) {
			t.Errorf("the scrape lacks %q:\n%s", want, s)
		}
	}
}

// TestMirrorRunnerRefLock: a ref lock git left in this boot (a git killed
// mid-update) fails every later update of plain git. The runner, which
// holds the repository, removes one older than its --timeout and says
// which; a younger one fails the update with git's line that names the
// file, not git's last line.
func TestMirrorRunnerRefLock(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	mirror := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, mirror)
	advance(t, env, up, 1, "r1")
	lock := filepath.Join(mirror, "refs", "heads", "main.lock")
	gittest.WriteFile(t, filepath.Dir(lock), "main.lock", "")
	c := runner(t, env, "--timeout", "1h", tree)
	if l := runnerLine(t, c, mirror); c.Code != 1 || !strings.Contains(l, "failed") || !strings.Contains(l, "cannot lock ref 'refs/heads/main'") || !strings.Contains(l, "refs/heads/main.lock': File exists") {
		t.Errorf("a fresh lock: exit %d, %q", c.Code, l)
	}
	old := time.Now().Add(-10 * time.Second)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	c = runner(t, env, "--timeout", "5s", tree)
	if l := runnerLine(t, c, mirror); c.Code != 0 || !strings.Contains(l, " ok ") || !strings.Contains(l, "set aside the stale lock file refs/heads/main.lock") {
		t.Errorf("a lock older than --timeout: exit %d, %q", c.Code, l)
	}
	if a, b := refs(t, env, mirror), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
}

// TestMirrorRunnerNotes: what a direct fetch would print beside its
// result reaches the runner's line: the helper's reading of a setting it
// had to guess at (a typo in core.fsyncMethod), and a statistics file the
// runner could not write. A run that fetched nothing writes no line to
// the statistics file; one that fetched does.
func TestMirrorRunnerNotes(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	mirror := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, mirror)
	gittest.Git(t, env, mirror, "config", "core.fsyncMethod", "bathc")
	advance(t, env, up, 1, "n1")
	bad := filepath.Join(base, "no-such-dir", "stats")
	c := runner(t, append(env, "GIT_REMOTE_DURABLE_STATS="+bad), tree)
	l := runnerLine(t, c, mirror)
	for _, want := range []string{" ok ", "settings: ", "bathc", "statistics not writ"} {
		if !strings.Contains(l, want) {
			t.Errorf("no %q in %q", want, l)
		}
	}
	stats := filepath.Join(base, "stats")
	mustRun(t, runner(t, append(env, "GIT_REMOTE_DURABLE_STATS="+stats), tree), "a run with nothing to fetch")
	if b, err := os.ReadFile(stats); err == nil {
		t.Errorf("a run with nothing to fetch wrote statistics:\n%s", b)
	}
	advance(t, env, up, 1, "n2")
	mustRun(t, runner(t, append(env, "GIT_REMOTE_DURABLE_STATS="+stats), tree), "a run that fetches")
	if b := string(readFile(t, stats)); !strings.Contains(b, `"kind":"session"`) || !strings.Contains(b, `"result":"fetched"`) {
		t.Errorf("statistics of a fetch:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(mirror, "durable-update.stats")); err == nil {
		t.Errorf("the update's statistics were left in the repository")
	}
}

// TestMirrorRunnerKilled: the runner killed with SIGKILL (the OOM killer)
// in the middle of an update leaves its git running — and the lock, which
// git inherited, held: the next run skips the repository instead of
// fetching beside it. Once that git is gone, the next run updates it, and
// passes on the session lines the orphan left in the repository.
func TestMirrorRunnerKilled(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	ln, accepted := stallingListener(t)
	tree := filepath.Join(base, "tree")
	mirror := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, mirror)
	gittest.Git(t, env, mirror, "config", "remote.origin.url", "durable::git://"+ln.Addr().String()+"/m.git")
	first := exec.Command(filepath.Join(binDir, "git-remote-durable"), "--update-mirrors", "--timeout", "1m", tree)
	first.Env = env
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); accepted.Load() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			first.Process.Kill()
			first.Wait()
			t.Fatal("the update never reached the upstream")
		}
	}
	first.Process.Kill()
	first.Wait()
	orphans := func() []byte {
		out, _ := exec.Command("pgrep", "-f", ln.Addr().String()).Output()
		return out
	}
	defer func() { // stopped by their process ids
		for _, pid := range strings.Fields(string(orphans())) {
			exec.Command("kill", "-9", pid).Run()
		}
	}()
	if len(orphans()) == 0 {
		t.Fatal("no git left running after the runner was killed")
	}
	c := runner(t, env, "--timeout", "3s", tree)
	if l := runnerLine(t, c, mirror); !strings.HasSuffix(l, " skipped: another update of it runs") {
		t.Errorf("beside the killed runner's git: %q", l)
	}
	// The orphan helper asked to stop, as the runner's time limit asks:
	// it writes the line of its session, then git ends.
	helper, _ := exec.Command("pgrep", "-f", "git-remote-durable origin git://"+ln.Addr().String()).Output()
	if len(helper) == 0 {
		t.Fatal("no orphan helper")
	}
	for _, pid := range strings.Fields(string(helper)) {
		exec.Command("kill", "-TERM", pid).Run()
	}
	for deadline := time.Now().Add(10 * time.Second); len(orphans()) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the orphans did not stop: %s", orphans())
		}
	}
	left := filepath.Join(mirror, "durable-update.stats")
	if b, err := os.ReadFile(left); err != nil || !strings.Contains(string(b), `"kind":"session"`) {
		t.Errorf("the orphan's session line: %v %q", err, b)
	}
	gittest.Git(t, env, mirror, "config", "remote.origin.url", "durable::file://"+up)
	advance(t, env, up, 1, "k1")
	stats := filepath.Join(base, "stats")
	mustRun(t, runner(t, append(env, "GIT_REMOTE_DURABLE_STATS="+stats), tree), "the run after")
	if b := string(readFile(t, stats)); !strings.Contains(b, ln.Addr().String()) || !strings.Contains(b, `"result":"fetched"`) {
		t.Errorf("the statistics lack the orphan's session or the update's:\n%s", b)
	}
	if _, err := os.Stat(left); err == nil {
		t.Errorf("%s left", left)
	}
	if a, b := refs(t, env, mirror), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
}

// stallingListener accepts connections on 127.0.0.1 and never answers:
// an upstream that hangs. It counts the connections; it closes with the
// test.
func stallingListener(t *testing.T) (net.Listener, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	var held []net.Conn
	var mu sync.Mutex
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	return ln, &n
}

// TestMirrorRunnerConvert: a tree of plain mirrors is adopted with
// --convert: --dry-run says which remote of which mirror it would convert
// and changes nothing (no config, no ref, no lock file); the run itself
// puts durable:: before each plain URL, says so, and updates each durably
// ("ok"). A remote that url.<base>.insteadOf already makes durable is left
// as it is.
func TestMirrorRunnerConvert(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	plain, rewritten := filepath.Join(tree, "plain.git"), filepath.Join(tree, "rewritten.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "file://"+up, plain)
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "file://"+up, rewritten)
	gittest.Git(t, env, rewritten, "config", "url.durable::file://.insteadOf", "file://")
	advance(t, env, up, 1, "c1")
	before := refs(t, env, plain)

	if c := runner(t, env, "--dry-run", tree); c.Code != 129 || !strings.Contains(string(c.Stderr), "--dry-run goes with --convert") {
		t.Errorf("--dry-run alone: exit %d\n%s", c.Code, c.Stderr)
	}
	c := runner(t, env, "--convert", "--dry-run", tree)
	mustRun(t, c, "the dry run")
	if l := runnerLine(t, c, plain); !strings.Contains(l, "dry run: would convert remote 'origin' file://"+up+" -> durable::file://"+up) {
		t.Errorf("plain: %q", l)
	}
	if l := runnerLine(t, c, rewritten); !strings.Contains(l, "dry run: every remote fetches through durable::") {
		t.Errorf("rewritten: %q", l)
	}
	if u := strings.TrimSpace(gittest.Git(t, env, plain, "config", "remote.origin.url")); u != "file://"+up || refs(t, env, plain) != before {
		t.Errorf("the dry run changed the mirror: url %s", u)
	}
	if _, err := os.Lstat(filepath.Join(plain, "durable-update.flock")); err == nil {
		t.Errorf("the dry run took a lock")
	}

	c = runner(t, env, "--convert", tree)
	mustRun(t, c, "the conversion")
	if l := runnerLine(t, c, plain); !strings.Contains(l, " ok ") || !strings.Contains(l, "converted remote 'origin' file://"+up+" -> durable::file://"+up) {
		t.Errorf("plain: %q", l)
	}
	if l := runnerLine(t, c, rewritten); !strings.Contains(l, " ok ") || strings.Contains(l, "converted") {
		t.Errorf("rewritten: %q", l)
	}
	if u := strings.TrimSpace(gittest.Git(t, env, plain, "config", "remote.origin.url")); u != "durable::file://"+up {
		t.Errorf("url after --convert: %s", u)
	}
	for _, m := range []string{plain, rewritten} {
		if a, b := refs(t, env, m), refs(t, env, up); a != b {
			t.Errorf("%s: refs\n%s\nupstream\n%s", filepath.Base(m), a, b)
		}
	}
}
