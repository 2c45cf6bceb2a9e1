//go:build linux

package integration

import (
	"bytes"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestMirrorRunnerUnreadableDir: a mirror root on a disk of its own holds
// lost+found (root's, 0700). The runner, run by the mirrors' owner, passes
// it over with one warning, counts it in the metrics and updates the
// mirror; --check reads the tree alike. (Before: "fatal: open
// …/lost+found: permission denied", exit 128, before any repository, and
// no metrics.)
func TestMirrorRunnerUnreadableDir(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	m := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, m)
	lost := filepath.Join(tree, "lost+found")
	if err := os.Mkdir(lost, 0o700); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(base, "metrics")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	metrics := filepath.Join(out, "m.prom")
	advance(t, env, up, 1, "lf1")
	name, args, cmdEnv := asUser(t, "nobody", env, nil, []string{m, up, out}, filepath.Join(binDir, "git-remote-durable"), "--update-mirrors", "--metrics", metrics, tree)
	c := gittest.Exec(t, cmdEnv, "", nil, name, args...)
	warning := "warning: passed over a directory that cannot be read, and is no repository: open " + lost + ": permission denied"
	if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, " ok ") || strings.Count(string(c.Stderr), "\n") != 1 || !strings.Contains(string(c.Stderr), warning) {
		t.Errorf("exit %d, line %q\n%s", c.Code, l, c.Stderr)
	}
	gittest.Git(t, env, "", "config", "--global", "--add", "safe.directory", "*") // root reads nobody's
	if a, b := refs(t, env, m), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
	if b := string(readFile(t, metrics)); !strings.Contains(b, `git_durable_update_unreadable_dirs{runner="`+tree+`"} 1`+"\n") ||
		!strings.Contains(b, series("git_durable_update_success", tree, m)+"1\n") {
		t.Errorf("metrics:\n%s", b)
	}
	name, args, cmdEnv = asUser(t, "nobody", env, nil, []string{m}, filepath.Join(binDir, "git-remote-durable"), "--check", tree)
	c = gittest.Exec(t, cmdEnv, "", nil, name, args...)
	if !strings.Contains(string(c.Stdout), m) || !strings.Contains(string(c.Stderr), warning) || strings.Contains(string(c.Stderr), "fatal:") {
		t.Errorf("--check: exit %d\n%s%s", c.Code, c.Stdout, c.Stderr)
	}
}

// TestMirrorRunnerSIGTERM: SIGTERM (systemctl stop, a shutdown) during a
// run stops the update in flight as --timeout does, says so on its line,
// starts no other, and writes the metrics of the mirrors whose update
// ended; the runner exits 128+15, its git processes gone. (Before: no line
// for the update in flight and no metrics.)
func TestMirrorRunnerSIGTERM(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	good, stalled, later := filepath.Join(tree, "a.git"), filepath.Join(tree, "b.git"), filepath.Join(tree, "c.git")
	for _, dir := range []string{good, stalled, later} {
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, dir)
	}
	silent := silentServer(t)
	gittest.Git(t, env, stalled, "config", "remote.origin.url", "durable::"+silent+"/m.git")
	metrics := filepath.Join(base, "m.prom")
	cmd := osexec.Command(filepath.Join(binDir, "git-remote-durable"), "--update-mirrors", "-j", "1", "--metrics", metrics, tree)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The first mirror's line, then the second's fetch in flight.
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(stdout.String(), good) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the runner did not stop on SIGTERM\n%s%s", stdout.String(), stderr.String())
	}
	c := &gittest.Cmd{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Code: cmd.ProcessState.ExitCode()}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		c.Code = 128 + int(ws.Signal())
	}
	if c.Code != 128+15 {
		t.Errorf("exit %d (%v), want 143\n%s%s", c.Code, err, stdout.String(), stderr.String())
	}
	if l := runnerLine(t, c, stalled); !strings.Contains(l, "stopped: the runner was asked to stop") {
		t.Errorf("the update in flight: %q", l)
	}
	if strings.Contains(stdout.String(), later) {
		t.Errorf("an update started after SIGTERM:\n%s", stdout.String())
	}
	b := string(readFile(t, metrics))
	for _, want := range []string{series("git_durable_update_success", tree, good) + "1\n", series("git_durable_update_success", tree, stalled) + "0\n",
		`git_durable_update_failed{runner="` + tree + `"} 1` + "\n"} {
		if !strings.Contains(b, want) {
			t.Errorf("metrics lack %q:\n%s", want, b)
		}
	}
	if strings.Contains(b, series("git_durable_update_success", tree, later)) {
		t.Errorf("metrics of a mirror never updated:\n%s", b)
	}
	time.Sleep(500 * time.Millisecond)
	if out, _ := osexec.Command("pgrep", "-af", strings.TrimPrefix(silent, "git://")).Output(); len(out) > 0 {
		t.Errorf("processes left running: %s", out)
	}
}
