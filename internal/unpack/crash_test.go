package unpack_test

import (
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/gittest"
)

// verdict is what a model must say about a method: the invariants that
// must break, as crashtest.Report.Broken names them ("" for durable).
type verdict struct{ mj, mp string }

// methodVerdicts: batch and fsync are durable under M_J; batch is not
// under M_P (which is why btrfs falls back), fsync and the fallback are;
// writeout-only and none are durable under neither — the checker can fail.
var methodVerdicts = []struct {
	method batch.Method
	kind   string
	path   batch.Path
	want   verdict
}{
	{batch.Batch, "ext4", batch.PathBatch, verdict{"", "I-a, I-b"}},
	{batch.Fsync, "ext4", batch.PathFsync, verdict{"", ""}},
	{batch.Batch, "btrfs", batch.PathFallback, verdict{"", ""}},
	{batch.WriteoutOnly, "ext4", batch.PathWriteoutOnly, verdict{"I-a", "I-a, I-b"}},
	{batch.None, "ext4", batch.PathNone, verdict{"I-a, I-b", "I-a, I-b"}},
}

// checkMethods unpacks pack with every method and checks the verdicts.
func checkMethods(t *testing.T, pack []byte, want int, workers int) {
	for _, mv := range methodVerdicts {
		r := unpackMem(t, pack, runConfig{method: mv.method, kind: mv.kind, workers: workers})
		if r.err != nil {
			t.Fatalf("%v on %s: %v", mv.method, mv.kind, r.err)
		}
		if len(r.reported) != want || r.res.Written != want {
			t.Fatalf("%v: %d reported, %d written, want %d", mv.method, len(r.reported), r.res.Written, want)
		}
		if st := r.policy.Stats(); st.Path != mv.path {
			t.Errorf("%v on %s ran %s", mv.method, mv.kind, st.Path)
		}
		for _, m := range []struct {
			model crashtest.Model
			want  string
		}{{crashtest.MJ, mv.want.mj}, {crashtest.MP, mv.want.mp}} {
			rep := r.check(t, m.model, r.reported)
			if got := rep.Broken(); got != m.want {
				t.Errorf("%v on %s under %v: broke %q, want %q\n%v", mv.method, mv.kind, m.model, got, m.want, rep.Err())
			}
			if rep.Objects != want {
				t.Errorf("%v: %d objects published, want %d", mv.method, rep.Objects, want)
			}
			t.Logf("%v on %s: %v", mv.method, mv.kind, rep)
		}
	}
}

// TestMethodsHandBuiltPack unpacks 3,000 objects (blobs, OFS and REF
// deltas) with four workers.
func TestMethodsHandBuiltPack(t *testing.T) {
	n := 3000
	if raceEnabled {
		n = 300
	}
	checkMethods(t, deltaPack(n, "hand"), n, 4)
}

// TestMethodsGitPack unpacks a pack git made of a generated history.
func TestMethodsGitPack(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	src := gittest.Init(t, env, true, "")
	files, commits, least := 120, 250, 1000
	if raceEnabled {
		files, commits, least = 20, 30, 100
	}
	gittest.History(t, env, src, files, commits)
	pack := gittest.GitIn(t, env, src, nil, "pack-objects", "--all", "--stdout", "-q", "--delta-base-offset")
	n := len(gittest.Git(t, env, src, "rev-list", "--objects", "--all", "--no-object-names"))
	n /= 41
	if n < least {
		t.Fatalf("only %d objects", n)
	}
	checkMethods(t, pack, n, 2)
}

// TestRepairIsCrashSafe unpacks into a repository where a crash left some
// of the pack's objects as half-written files under their final names:
// the run must replace them (I-a counts them, broken or not) without a
// crash state where a replacement is incomplete (I-b).
func TestRepairIsCrashSafe(t *testing.T) {
	const n = 300
	all := blobs(n, "repair")
	broken := [][]byte{all[0], all[3], all[n-3]} // full blobs in deltaPack
	for _, method := range []batch.Method{batch.Batch, batch.Fsync} {
		r := unpackMem(t, deltaPack(n, "repair"), runConfig{method: method, workers: 4, broken: broken})
		if r.err != nil {
			t.Fatalf("%v: %v", method, r.err)
		}
		rep := r.check(t, crashtest.MJ, r.reported)
		if rep.BrokenBefore != len(broken) || !rep.Durable() {
			t.Errorf("%v: %d broken before; %v\n%v", method, rep.BrokenBefore, rep, rep.Err())
		}
	}
}
