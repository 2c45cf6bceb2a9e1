package integration

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/gittest"
)

// TestStraceBatchOrder runs git-unpack-durable in batch mode under strace on
// a pack of more than 1,000 objects and checks I-order on the real system
// calls: a completed writeout-only sync of each object before its rename,
// and exactly one full flush, of the object renamed last, after it. The
// same check must fail for method none and for git's own batch mode (which
// links objects into place after its flush).
func TestStraceBatchOrder(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed: ", err)
	}
	env := env(t)
	src := historyRepo(t, env)
	pack := packOf(t, env, src, "main~400\n", "--revs", "--delta-base-offset")
	batch := []string{"-c", "core.fsync=loose-object", "-c", "core.fsyncMethod=batch"}

	repo := gittest.Init(t, env, true, "")
	calls := straced(t, env, repo, pack, append(batch, "unpack-durable")...)
	rep, err := crashtest.CheckOrder(calls)
	if err != nil {
		t.Fatalf("ours, batch: %v", err)
	}
	if rep.Objects < 1000 || rep.Writeouts != rep.Objects {
		t.Fatalf("ours, batch: %+v", rep)
	}
	gittest.Fsck(t, env, repo)
	t.Logf("ours, batch: %d objects, %d writeouts, %d flush (of the last rename)", rep.Objects, rep.Writeouts, rep.Flushes)

	repo = gittest.Init(t, env, true, "")
	if _, err := crashtest.CheckOrder(straced(t, env, repo, pack, "-c", "core.fsync=none", "unpack-durable")); err == nil {
		t.Error("ours with core.fsync=none passed the check")
	}
	repo = gittest.Init(t, env, true, "")
	if _, err := crashtest.CheckOrder(straced(t, env, repo, pack, append(batch, "unpack-objects", "-q")...)); err == nil {
		t.Error("git's batch mode passed the check")
	} else {
		t.Logf("git's batch mode: %v", err)
	}
}

// TestStraceDefaultIsBatch checks that with no fsync configuration at all
// the unpacker runs the batch scheme.
func TestStraceDefaultIsBatch(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed: ", err)
	}
	env := env(t)
	src := gittest.Init(t, env, true, "")
	gittest.History(t, env, src, 20, 10)
	repo := gittest.Init(t, env, true, "")
	calls := straced(t, env, repo, packOf(t, env, src, "", "--all"), "unpack-durable")
	if _, err := crashtest.CheckOrder(calls); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, c := range calls {
		if c.Name == "fsync" {
			b.WriteString(strings.Join(c.Args, ","))
		}
	}
	if !strings.Contains(b.String(), "/objects/") {
		t.Errorf("flush was not of an object: %s", b.String())
	}
}
