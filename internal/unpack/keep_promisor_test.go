package unpack_test

import (
	"path"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/unpack"
)

// TestPromisorPack keeps a pack as a promisor pack: its .promisor holds the
// text as it was given, is renamed into place after the .keep and before
// the .pack (git's index-pack --promisor order), and is durable with the
// four other files under the one flush of the batch.
func TestPromisorPack(t *testing.T) {
	pack := deltaPack(300, "promisor")
	const refs = "1111111111111111111111111111111111111111 refs/heads/main\n"
	for _, text := range []string{refs, ""} {
		r := unpackMem(t, pack, runConfig{method: batch.Batch, workers: 2, keep: true, promisor: true, promisorText: text})
		if r.err != nil {
			t.Fatal(r.err)
		}
		base := objDir + "/pack/pack-" + r.res.Pack
		var order []string
		for _, ev := range r.m.Events()[r.setup:] {
			if ev.Op == memfstest.OpRename && strings.HasPrefix(ev.Path2, base) {
				order = append(order, path.Ext(ev.Path2))
			}
		}
		if got := strings.Join(order, " "); got != ".keep .promisor .pack .rev .idx" {
			t.Errorf("published in the order %s", got)
		}
		if text == "" {
			// An empty promisor text still makes a promisor pack (git's
			// index-pack --promisor without a message).
			continue
		}
		if b, err := r.m.ReadFile(base + ".promisor"); err != nil || string(b) != refs {
			t.Errorf(".promisor holds %q (%v), want %q", b, err, refs)
		}
		var files []string
		for _, ext := range []string{"keep", "promisor", "pack", "rev", "idx"} {
			files = append(files, base+"."+ext)
		}
		if rep := r.check(t, crashtest.MJ, files); !rep.Durable() || rep.Objects != 5 {
			t.Errorf("%d files published: %v", rep.Objects, rep.Err())
		}
	}
}

// TestPromisorPackFailureLeavesNothing: a .promisor that cannot be created
// fails the run in git's index-pack's words, and leaves nothing.
func TestPromisorPackFailureLeavesNothing(t *testing.T) {
	r := unpackMem(t, deltaPack(100, "promisor failure"), runConfig{method: batch.Batch, workers: 2, keep: true, promisor: true,
		fail: func(i int, ev memfstest.Event) error {
			if ev.Op == memfstest.OpCreate && strings.Contains(ev.Path, "tmp_promisor_") {
				return memfstest.ENOSPC
			}
			return nil
		}})
	if r.err == nil {
		t.Fatal("the run did not fail")
	}
	lines, _ := unpack.Describe(r.err)
	if len(lines) != 1 || !strings.HasPrefix(lines[0].String(), "fatal: cannot write promisor file '"+objDir+"/pack/pack-") {
		t.Errorf("described as %q", lines)
	}
	if names, _ := r.m.ReadDir(objDir + "/pack"); len(names) != 0 {
		t.Errorf("left in objects/pack: %v", names)
	}
}
