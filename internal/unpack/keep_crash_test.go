package unpack_test

import (
	"strings"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/memfstest"
)

// TestKeptPackIsCrashSafe keeps a pack in memory with every method and
// checks, in every crash state, that no .idx is visible whose pack is
// incomplete (I-b) and, after the return, that the four files are there
// and complete (I-a); none and writeout-only must fail.
func TestKeptPackIsCrashSafe(t *testing.T) {
	pack := deltaPack(600, "keep")
	for _, mv := range methodVerdicts {
		r := unpackMem(t, pack, runConfig{method: mv.method, kind: mv.kind, workers: 2, keep: true})
		if r.err != nil {
			t.Fatalf("%v: %v", mv.method, r.err)
		}
		if r.res.Pack == "" || r.res.KeepPath == "" {
			t.Fatalf("%v: no pack kept: %+v", mv.method, r.res)
		}
		var files []string
		for _, ext := range []string{"keep", "pack", "rev", "idx"} {
			files = append(files, objDir+"/pack/pack-"+r.res.Pack+"."+ext)
		}
		rep := r.check(t, crashtest.MJ, files)
		if rep.Objects != 4 {
			t.Errorf("%v: %d files published, want 4", mv.method, rep.Objects)
		}
		durable := mv.method == batch.Batch || mv.method == batch.Fsync
		if durable && !rep.Durable() {
			t.Errorf("%v on %s: %v", mv.method, mv.kind, rep.Err())
		}
		if !durable && rep.Durable() {
			t.Errorf("%v on %s passed the crash check", mv.method, mv.kind)
		}
		t.Logf("%v on %s: %v", mv.method, mv.kind, rep)
	}
}

// TestKeptPackMutants: renaming the .idx before the .pack is durable, or
// not writing the pack out, must be caught.
func TestKeptPackMutants(t *testing.T) {
	pack := deltaPack(300, "keep mutant")
	r := unpackMem(t, pack, runConfig{method: batch.Batch, workers: 2, keep: true, wrap: func(fs batch.FS) batch.FS { return noWriteout{fs} }})
	if r.err != nil {
		t.Fatal(r.err)
	}
	var files []string
	for _, ext := range []string{"pack", "idx"} {
		files = append(files, objDir+"/pack/pack-"+r.res.Pack+"."+ext)
	}
	if rep := r.check(t, crashtest.MJ, files); rep.BadIB == 0 {
		t.Errorf("a pack published without writeouts passed I-b: %v", rep)
	}
}

// TestKeptPackFailureLeavesNothing fails, in turn, the creation and the
// writes of every file of a kept pack: the run fails and no temporary file
// of it is left in objects/pack.
func TestKeptPackFailureLeavesNothing(t *testing.T) {
	pack := deltaPack(200, "keep failure")
	for _, kind := range []string{"tmp_pack_", "tmp_idx_", "tmp_rev_", "tmp_keep_"} {
		for _, op := range []memfstest.Op{memfstest.OpCreate, memfstest.OpWrite} {
			r := unpackMem(t, pack, runConfig{method: batch.Batch, workers: 2, keep: true,
				fail: func(i int, ev memfstest.Event) error {
					if ev.Op == op && strings.Contains(ev.Path, kind) {
						return memfstest.ENOSPC
					}
					return nil
				}})
			if r.err == nil {
				t.Errorf("%s %s: the run did not fail", op, kind)
			}
			names, _ := r.m.ReadDir(objDir + "/pack")
			for _, n := range names {
				if strings.HasPrefix(n, "tmp_") {
					t.Errorf("%s %s failed: %s left behind", op, kind, n)
				}
			}
		}
	}
}
