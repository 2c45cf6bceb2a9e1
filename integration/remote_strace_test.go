package integration

import (
	"path/filepath"
	"testing"

	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteStraceFetch runs the helper of a git fetch under strace (a
// git-remote-durable earlier on PATH that execs the real one under strace)
// and checks the batch scheme's order on its real system calls: a
// completed writeout of every object before its rename, and exactly one
// full flush, of the object renamed last, after the last rename — before
// git is told the fetch is done; then, as git ends the session once it
// wrote the refs, exactly one more, which makes them durable.
func TestRemoteStraceFetch(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	dir := newUpstream(t, env, base, "up.git")
	ours := filepath.Join(base, "ours")
	c, _ := durable(t, env, "", "clone", "durable::file://"+dir, ours)
	mustRun(t, c, "clone")
	advance(t, env, dir, 5, "v700")

	env, trace := underStrace(t, env)
	c, stats := durable(t, env, ours, "fetch")
	mustRun(t, c, "fetch under strace")
	if len(stats) != 1 {
		t.Fatalf("%d fetch batches, want 1", len(stats))
	}
	rep, err := crashtest.CheckSessionOrder(readTrace(t, trace))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Later != 1 {
		t.Errorf("%d flushes after the batch's, want the one of the refs git wrote", rep.Later)
	}
	if rep.Objects != stats[0].Written || rep.Writeouts < rep.Objects {
		t.Fatalf("strace: %+v; the helper says %d objects written", rep, stats[0].Written)
	}
	t.Logf("%d objects renamed after their writeout, %d flush (of %s) after the last rename", rep.Objects, rep.Flushes, filepath.Base(rep.Flushed))
	gittest.Fsck(t, env, ours)
}
