//go:build !windows

package integration

import (
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestMirrorRunnerRepairs: what a crash during an update leaves in a
// mirror that git fails on — a lock file from before the boot, a torn
// packed-refs, an empty loose ref, a ref whose object is gone — makes
// plain git's update fail on each; the runner puts each right and updates
// it: one "ok" line per mirror naming what it did, exit 0, the refs of the
// upstream, git fsck clean. Nothing is deleted: what was set aside is in
// the quarantine, as it was (the torn packed-refs, the empty ref, the
// lock); the ref whose object neither the mirror nor the upstream has is
// fetched by id first, and set aside only once the upstream refused it. A
// healthy mirror nested deeper in the tree is found and updated too.
func TestMirrorRunnerRepairs(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	clone := func(name string) string {
		dir := filepath.Join(tree, name)
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, dir)
		return dir
	}
	torn, empty, missing, healthy := clone("torn.git"), clone("empty.git"), clone("missing.git"), clone("deep/er/healthy.git")
	advance(t, env, up, 2, "v9")
	b, err := os.ReadFile(filepath.Join(torn, "packed-refs"))
	if err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, torn, "packed-refs", string(b[:len(b)-20]))
	gittest.WriteFile(t, torn, "HEAD.lock", "")
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(torn, "HEAD.lock"), old, old); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, empty, "refs/heads/main", "")
	gittest.WriteFile(t, missing, "refs/heads/main", strings.Repeat("5", 40)+"\n")
	for _, dir := range []string{torn, empty, missing} {
		if c := gittest.Exec(t, env, dir, nil, "git", "remote", "update", "--prune"); c.Code == 0 {
			t.Fatalf("plain git's update of %s succeeded", filepath.Base(dir))
		}
	}
	c := runner(t, env, "-j", "3", tree)
	mustRun(t, c, "the runner")
	for dir, repair := range map[string]string{
		torn:    "(tidied: set aside the stale lock file HEAD.lock; wrote packed-refs again without its 1 torn line; kept in durable-quarantine/",
		empty:   "(tidied: set aside the broken ref refs/heads/main; kept in durable-quarantine/",
		missing: "(mended: set aside refs/heads/main, which names ",
		healthy: "",
	} {
		line := runnerLine(t, c, dir)
		want := " ok "
		if repair != "" {
			want = repair
		}
		if !strings.Contains(line, " ok ") || !strings.Contains(line, want) || repair == "" && strings.Contains(line, "(") {
			t.Errorf("%s: %q, want %q", filepath.Base(dir), line, want)
		}
		gittest.Fsck(t, env, dir)
		if a, b := refs(t, env, dir), refs(t, env, up); a != b {
			t.Errorf("%s: refs\n%s\nupstream\n%s", filepath.Base(dir), a, b)
		}
	}
	for dir, kept := range map[string]map[string]string{
		torn:    {"HEAD.lock": "", "packed-refs": string(b[:len(b)-20])},
		empty:   {"refs/heads/main": ""},
		missing: {"refs/heads/main": strings.Repeat("5", 40) + "\n"},
	} {
		for name, want := range kept {
			got, err := filepath.Glob(filepath.Join(dir, "durable-quarantine", "*", name))
			if err != nil || len(got) != 1 {
				t.Errorf("%s: %s kept aside %v, want one", filepath.Base(dir), name, got)
				continue
			}
			if b := readFile(t, got[0]); string(b) != want {
				t.Errorf("%s: %s kept aside as %q, want %q", filepath.Base(dir), name, b, want)
			}
		}
	}
}

// TestMirrorRunnerFailures: a mirror whose upstream is gone fails with its
// own line and git's reason, the others are updated, the exit is 1; one
// that another runner holds is skipped; an update over its time limit is
// stopped and said so, and leaves no git process behind.
func TestMirrorRunnerFailures(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	good, gone, held := filepath.Join(tree, "good.git"), filepath.Join(tree, "gone.git"), filepath.Join(tree, "held.git")
	for _, dir := range []string{good, gone, held} {
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, dir)
	}
	metrics := filepath.Join(base, "git_durable.prom")
	mustRun(t, runner(t, env, "--metrics", metrics, tree), "the first run")
	first, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	label := func(name, dir string) string { return series(name, tree, dir) }
	lastOK := ""
	for _, l := range strings.Split(string(first), "\n") {
		if v, ok := strings.CutPrefix(l, label(lastSuccess, gone)); ok {
			lastOK = v
		}
	}
	if lastOK == "" || !strings.Contains(string(first), label("git_durable_update_success", gone)+"1\n") || !strings.Contains(string(first), `git_durable_update_failed{runner="`+tree+`"} 0`+"\n") {
		t.Fatalf("metrics of a run that succeeded:\n%s", first)
	}
	gittest.Git(t, env, gone, "config", "remote.origin.url", "durable::file://"+filepath.Join(base, "nothing.git"))
	f, err := os.OpenFile(filepath.Join(held, "durable-update.flock"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	c := runner(t, env, "--metrics", metrics, tree)
	if c.Code != 1 || !strings.Contains(string(c.Stderr), "error: 1 of 3 repositories failed to update") {
		t.Errorf("exit %d, want 1 with the count of failures:\n%s", c.Code, c.Stderr)
	}
	if l := runnerLine(t, c, gone); !strings.Contains(l, " failed ") || !strings.Contains(l, "nothing.git") {
		t.Errorf("gone: %q", l)
	}
	if l := runnerLine(t, c, good); !strings.Contains(l, " ok ") {
		t.Errorf("good: %q", l)
	}
	if l := runnerLine(t, c, held); !strings.HasSuffix(l, " skipped: another update of it runs") {
		t.Errorf("held: %q", l)
	}
	// The metrics say which failed, and since when the mirror is stale.
	second, err := os.ReadFile(metrics)
	if err != nil {
		t.Fatal(err)
	}
	// A skipped mirror keeps the series of its last update, and says it
	// was skipped.
	for _, want := range []string{label("git_durable_update_success", gone) + "0\n", label("git_durable_update_success", good) + "1\n",
		label(lastSuccess, gone) + lastOK + "\n", `git_durable_update_failed{runner="` + tree + `"} 1` + "\n",
		label("git_durable_update_success", held) + "1\n", label("git_durable_update_skipped", held) + "1\n",
		label("git_durable_update_skipped", good) + "0\n", `git_durable_update_skipped_mirrors{runner="` + tree + `"} 1` + "\n",
		lineWith(string(first), label("git_durable_update_last_run_timestamp_seconds", held)) + "\n"} {
		if !strings.Contains(string(second), want) {
			t.Errorf("metrics lack %q:\n%s", want, second)
		}
	}

	// An upstream that accepts and never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	stalled := filepath.Join(base, "stalled", "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, stalled)
	gittest.Git(t, env, stalled, "config", "remote.origin.url", "durable::git://"+ln.Addr().String()+"/m.git")
	start := time.Now()
	stats := filepath.Join(base, "stats")
	c = runner(t, append(env, "GIT_REMOTE_DURABLE_STATS="+stats), "--timeout", "2s", filepath.Dir(stalled))
	if l := runnerLine(t, c, stalled); c.Code != 1 || !strings.Contains(l, "timed out after 2s") || time.Since(start) > 10*time.Second {
		t.Errorf("exit %d after %v: %q", c.Code, time.Since(start), l)
	}
	// The helper, stopped, still leaves the line of its session.
	if b, _ := os.ReadFile(stats); !strings.Contains(string(b), `"kind":"session"`) || !strings.Contains(string(b), `"result":"failed"`) {
		t.Errorf("no session line of the update that timed out:\n%s", b)
	}
	time.Sleep(500 * time.Millisecond)
	// The helper's arguments name the upstream: git fetch under git remote
	// update, and the helper under it, are stopped with it.
	if out, _ := osexec.Command("pgrep", "-af", ln.Addr().String()).Output(); len(out) > 0 {
		t.Errorf("processes left running: %s", out)
	}
}

// TestMirrorRunnerSystemd: the service the README ships runs the runner
// as its ExecStart says — the command line, with the built binary for
// /usr/local/bin's and a tree of mirrors for /srv/git, updates them — and,
// where systemd-analyze is installed, the unit and its timer verify.
func TestMirrorRunnerSystemd(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "srv")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, filepath.Join(tree, "a.git"))
	b, err := os.ReadFile("../docs/systemd/git-durable-mirrors.service")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(binDir, "git-remote-durable")
	unit := strings.NewReplacer("/usr/local/bin/git-remote-durable", bin,
		"/var/lib/prometheus/node-exporter", t.TempDir()).Replace(string(b))
	var exec []string
	for _, l := range strings.Split(unit, "\n") {
		if v, ok := strings.CutPrefix(l, "ExecStart="); ok {
			exec = strings.Fields(strings.ReplaceAll(v, "/srv/git", tree))
		}
	}
	if len(exec) < 3 || exec[0] != bin || exec[1] != "--update-mirrors" {
		t.Fatalf("ExecStart: %q", exec)
	}
	c := gittest.Exec(t, env, "", nil, exec[0], exec[1:]...)
	mustRun(t, c, "the service's command")
	if l := runnerLine(t, c, filepath.Join(tree, "a.git")); !strings.Contains(l, " ok ") {
		t.Errorf("%q", l)
	}
	analyze, err := osexec.LookPath("systemd-analyze")
	if err != nil {
		t.Logf("systemd-analyze is not installed: the unit files are not verified")
		return
	}
	dir := t.TempDir()
	gittest.WriteFile(t, dir, "git-durable-mirrors.service", unit)
	timer, err := os.ReadFile("../docs/systemd/git-durable-mirrors.timer")
	if err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, dir, "git-durable-mirrors.timer", string(timer))
	out, err := osexec.Command(analyze, "verify", filepath.Join(dir, "git-durable-mirrors.service"), filepath.Join(dir, "git-durable-mirrors.timer")).CombinedOutput()
	if err != nil {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
