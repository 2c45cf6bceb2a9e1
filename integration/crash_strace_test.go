package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	batchpkg "github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/gittest"
)

// TestStraceCrashStates runs git-unpack-durable under strace on a pack of
// more than 1,000 objects with methods batch, fsync and none, turns the
// system calls into events and enumerates every crash state the models
// allow: batch and fsync must keep every object name complete in every
// state (I-b) and every object present once the command returned (I-a)
// under M_J, batch must also pass I-order; none, and git's own batch mode,
// must be found not durable.
// Under M_P, fsync must pass and batch must fail I-a — the reason btrfs
// gets the fallback.
//
// The trace carries write lengths, not data (strace prints a prefix): the
// content of each file is read from the repository after the run. That is
// exact here: every object file is written once, from offset 0, by plain
// write(2) calls, so what a crash keeps of it is the prefix the kept writes
// cover, and the complete file is what the run left (fsck checks it).
// Writes a trace misses (the strace set has no writev or pwrite64) would
// only shorten what the model thinks is durable: the check stays
// conservative.
func TestStraceCrashStates(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed: ", err)
	}
	env := env(t)
	src := historyRepo(t, env)
	pack := packOf(t, env, src, "main~400\n", "--revs", "--delta-base-offset")
	ids := strings.Fields(gittest.Git(t, env, src, "rev-list", "--objects", "--no-object-names", "main~400"))
	if len(ids) < 1000 {
		t.Fatalf("only %d objects", len(ids))
	}
	batch := []string{"-c", "core.fsync=loose-object", "-c", "core.fsyncMethod=batch"}
	// Where a regular file's fsync may be a fast commit (ext4 with
	// fast_commit, or where that cannot be ruled out) the fsync method
	// commits by directory, which is durable under M_J only.
	dirCommit := batchpkg.OS.Kind(t.TempDir()).DirCommit
	for _, tt := range []struct {
		method string
		args   []string
		mj, mp bool // durable under each model?
	}{
		{"batch", append(batch, "unpack-durable"), true, false},
		{"fsync", []string{"-c", "core.fsync=loose-object", "-c", "core.fsyncMethod=fsync", "unpack-durable"}, true, !dirCommit},
		{"none", []string{"-c", "core.fsync=none", "unpack-durable"}, false, false},
		// git's own batch mode moves objects into place after its flush.
		{"git's batch", append(batch, "unpack-objects", "-q"), false, false},
	} {
		repo := gittest.Init(t, env, true, "")
		calls := straced(t, env, repo, pack, tt.args...)
		gittest.Fsck(t, env, repo)
		real, err := filepath.EvalSymlinks(repo)
		if err != nil {
			t.Fatal(err)
		}
		expect := make([]string, len(ids))
		for i, id := range ids {
			expect[i] = filepath.Join(real, "objects", id[:2], id[2:])
		}
		evs, err := crashtest.FromStrace(calls)
		if err != nil {
			t.Fatalf("%s: %v", tt.method, err)
		}
		for _, m := range []struct {
			model   crashtest.Model
			durable bool
		}{{crashtest.MJ, tt.mj}, {crashtest.MP, tt.mp}} {
			rep, err := crashtest.Check(evs, crashtest.Options{Model: m.model, Expect: expect, Content: os.ReadFile})
			if err != nil {
				t.Fatalf("%s: %v", tt.method, err)
			}
			if rep.Objects != len(ids) {
				t.Errorf("%s: %d objects renamed into place, want %d", tt.method, rep.Objects, len(ids))
			}
			if rep.Durable() != m.durable {
				t.Errorf("%s under %v: durable %v, want %v; %v\n%v", tt.method, m.model, rep.Durable(), m.durable, rep, rep.Err())
			}
			t.Logf("%s: %v", tt.method, rep)
			if !rep.Durable() {
				t.Logf("%s: first: %v", tt.method, rep.Violations[0])
			}
		}
		if tt.method == "batch" {
			if _, err := crashtest.CheckOrder(calls); err != nil {
				t.Errorf("batch: I-order: %v", err)
			}
		}
	}
}
