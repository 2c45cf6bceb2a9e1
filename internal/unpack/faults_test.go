package unpack_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/object"
)

// TestFaultSweep fails the run's k-th filesystem operation, for every k,
// with EIO and with ENOSPC, in batch and fsync mode, with one worker (the
// order of operations is then fixed) and with four (batch only under the
// race detector, on a smaller pack). Each run must return
// an error that wraps the fault and pass checkFaulted.
func TestFaultSweep(t *testing.T) {
	n, fours := 48, []batch.Method{batch.Batch, batch.Fsync}
	if raceEnabled {
		n, fours = 12, fours[:1]
	}
	pack := deltaPack(n, "sweep")
	before := append(blobs(4, "sweep")[:2], blobs(3, "older")...) // two also in the pack
	initial := map[string]bool{}
	for _, data := range before {
		id, _ := object.SHA1.Sum(object.Blob, data)
		initial[objPath(id)] = true
	}
	runs := 0
	for _, method := range []batch.Method{batch.Batch, batch.Fsync} {
		for _, workers := range []int{1, 4} {
			if workers == 4 && !slices.Contains(fours, method) {
				continue
			}
			clean := unpackMem(t, pack, runConfig{method: method, workers: workers, before: before})
			if clean.err != nil || clean.res.Written != n-2 {
				t.Fatalf("%v: clean run: %v, %+v", method, clean.err, clean.res)
			}
			ops := len(clean.m.Events()) - clean.setup
			for k := 0; k < ops; k++ {
				for _, fault := range []error{memfstest.EIO, memfstest.ENOSPC} {
					name := fmt.Sprintf("%v/%d workers/op %d/%v", method, workers, k, fault)
					var failed *memfstest.Event
					r := unpackMem(t, pack, runConfig{method: method, workers: workers, before: before,
						fail: func(i int, ev memfstest.Event) error {
							if i == k {
								failed = &ev
								return fault
							}
							return nil
						}})
					runs++
					if failed == nil {
						continue // four workers: this run had fewer operations
					}
					if !errors.Is(r.err, fault) {
						t.Fatalf("%s (%s %s): returned %v", name, failed.Op, failed.Path, r.err)
					}
					checkFaulted(t, name, r, failed.Op, initial)
				}
			}
		}
	}
	t.Logf("%d faulted runs", runs)
}

// checkFaulted checks a run whose operation failed: I-b everywhere, the
// objects from before the run never renamed over or removed, as many
// objects reported written as were renamed into place, and — unless
// the fault hit a final flush — the objects the run published before and
// after the fault durable from its last flush on (it ends its transaction
// even after an error).
func checkFaulted(t *testing.T, name string, r *memRun, failed memfstest.Op, initial map[string]bool) {
	t.Helper()
	var published []string
	for _, e := range r.m.Events()[r.setup:] {
		if e.Op == memfstest.OpRename && crashtest.IsObject(e.Path2) {
			published = append(published, e.Path2)
		}
		if initial[e.Path] || initial[e.Path2] {
			t.Fatalf("%s: the run touched %s, which was there before: %s", name, e.Path+e.Path2, e.Op)
		}
	}
	// "written" counts what is under a final name, not what was thrown
	// away with its temporary file.
	if r.res.Written != len(published) {
		t.Fatalf("%s: %d objects reported written, %d renamed into place", name, r.res.Written, len(published))
	}
	if failed == memfstest.OpFlush || failed == memfstest.OpFlushDir {
		published = nil
	}
	if rep := r.check(t, crashtest.MJ, published); !rep.Durable() {
		t.Fatalf("%s: %v", name, rep.Err())
	}
}
