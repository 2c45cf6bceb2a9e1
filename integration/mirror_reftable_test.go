//go:build !windows

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestMirrorRunnerReftable: a mirror whose refs are in reftable (git 2.45
// and later) keeps refs/heads, the stub every reftable repository must
// hold, through the runner's update and --verify; a tables.list.lock left
// in this boot past --timeout, while no process works there, is set aside
// as every stale lock is; the refs are the upstream's, and git refs migrate
// turns the mirror to the files backend and back. (Before: every runner
// pass removed the stub as a broken ref, and git refs migrate then left a
// directory that was no repository.)
func TestMirrorRunnerReftable(t *testing.T) {
	env := newGitEnv(t, 2, 45)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	m := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "--ref-format=reftable", "durable::file://"+up, m)
	stub := filepath.Join(m, "refs", "heads")
	isStub := func(when string) {
		t.Helper()
		if st, err := os.Lstat(stub); err != nil || !st.Mode().IsRegular() {
			t.Fatalf("%s: refs/heads is not the stub git requires: %v", when, err)
		}
	}
	isStub("after the clone")
	advance(t, env, up, 1, "r1")
	lock := filepath.Join(m, "reftable", "tables.list.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-10 * time.Second)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	c := runner(t, env, "--timeout", "5s", tree)
	if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, " ok ") || !strings.Contains(l, "set aside the stale lock file reftable/tables.list.lock") {
		t.Errorf("exit %d, %q", c.Code, l)
	}
	isStub("after the runner")
	if a, b := refs(t, env, m), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
	mustRun(t, verifier(t, env, tree), "--verify")
	isStub("after --verify")
	want := refs(t, env, m)
	gittest.Git(t, env, m, "refs", "migrate", "--ref-format=files")
	if got := refs(t, env, m); got != want {
		t.Errorf("after the migration to files:\n%s\nwant\n%s", got, want)
	}
	mustRun(t, runner(t, env, tree), "the runner on files")
	gittest.Git(t, env, m, "refs", "migrate", "--ref-format=reftable")
	isStub("after the migration back")
	gittest.Git(t, env, m, "fsck", "--full")
}
