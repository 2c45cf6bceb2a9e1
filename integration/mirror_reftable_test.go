//go:build !windows

package integration

import (
	"fmt"
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

// TestMirrorReftableTornTable: a crash leaves the newest table of a
// reftable mirror empty under its name (written without a sync): plain git
// then reads no ref at all (for-each-ref prints nothing, exit 0). The
// runner's update writes tables.list again without it, sets it aside in
// the quarantine and fetches: the refs are the upstream's again. --verify
// does the same of a table cut short. (Before: the runner's fetch and
// --verify went on with no refs; --verify said ok.)
func TestMirrorReftableTornTable(t *testing.T) {
	env := newGitEnv(t, 2, 45, "GIT_TEST_REFTABLE_AUTOCOMPACTION=false")
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	m := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "--ref-format=reftable", "durable::file://"+up, m)
	newest := func() string {
		t.Helper()
		list := strings.Fields(string(readFile(t, filepath.Join(m, "reftable", "tables.list"))))
		return filepath.Join(m, "reftable", list[len(list)-1])
	}
	for i, c := range []struct {
		name   string
		damage func(path string) error
		run    func() *gittest.Cmd
	}{
		{"the update, an empty table", func(p string) error { return os.Truncate(p, 0) }, func() *gittest.Cmd { return runner(t, env, tree) }},
		{"--verify, a table cut short", func(p string) error {
			st, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, st.Size()/2)
		}, func() *gittest.Cmd { return verifier(t, env, tree) }},
	} {
		advance(t, env, up, 1, fmt.Sprintf("torn%d", i))
		mustRun(t, runner(t, env, tree), "an update that writes a table")
		want := refs(t, env, up)
		table := newest()
		if err := c.damage(table); err != nil {
			t.Fatal(err)
		}
		// git reads no ref, or dies (git 2.55: SIGSEGV).
		fe := gittest.Exec(t, env, m, nil, "git", "for-each-ref")
		t.Logf("%s: git for-each-ref of the damaged stack: exit %d, %d bytes", c.name, fe.Code, len(fe.Stdout))
		cmd := c.run()
		l := runnerLine(t, cmd, m)
		if cmd.Code != 0 || !strings.Contains(l, "wrote reftable/tables.list again without the table git cannot read "+filepath.Base(table)) {
			t.Errorf("%s: exit %d, %q\n%s", c.name, cmd.Code, l, cmd.Stderr)
		}
		if got := refs(t, env, m); got != want {
			t.Errorf("%s: refs\n%s\nupstream\n%s", c.name, got, want)
		}
		kept, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*", "reftable", filepath.Base(table)))
		if len(kept) != 1 {
			t.Errorf("%s: the table set aside: %v", c.name, kept)
		}
		gittest.Git(t, env, m, "fsck", "--full")
	}
}
