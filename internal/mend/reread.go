package mend

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// rereadCache bounds the objects kept of what was resolved in the packs
// a mend fetched (share) and in those it wrote again (stillBroken, shared
// out among its workers): the bases their deltas share.
const rereadCache = 32 << 20

// rereadChunk is how many objects read again make a worker's work: fewer
// are read by one.
const rereadChunk = 256

// stillBroken reads again every object the verification found broken,
// as git would (a good loose copy first), but those checked as the packs
// were written again (written whole, hashed: checked, by pack), and those the fetched packs
// hold (the unpack hashed them as they came) and no pack written again
// does, and returns those that still cannot be read. Those the packs
// written again (written) hold, and no loose file, are read from there
// down their delta tree (reread: the good copies put in place of broken
// ones, and the deltas on them, each read once), by as many workers as
// there are CPUs; one that does not read right there is read once more
// as git would, from whatever copy the store finds.
//
// It also returns which of them a pack written again holds and that read
// right there (or were hashed as it was written).
func stillBroken(r *repo.Repo, f *Findings, fetched fetchedPacks, written []string, checked map[string]map[object.ID]bool) (left []object.ID, there map[object.ID]bool) {
	store := loose.Open(batch.OS, r.ObjectDir, loose.Options{Format: r.Format})
	defer store.Close()
	indexes := make([]*pack.Index, len(written)) // nil: one that does not read
	for i, path := range written {
		indexes[i], _ = readIndex(path, r.Format)
	}
	inPack := make([][]packed, len(written))
	bad := map[object.ID]bool{}
	there = map[object.ID]bool{}
	broken := f.Report.Broken()
	for _, id := range broken {
		// Read in every pack written again that holds it: an object
		// broken in two packs has a copy in each.
		in := false
		if !hasLoose(r.ObjectDir, id) {
			for i, x := range indexes {
				if x == nil {
					continue
				}
				off, ok := x.FindOffset(id)
				if !ok {
					continue
				}
				in = true
				if !checked[written[i]][id] {
					inPack[i] = append(inPack[i], packed{off, id})
				}
			}
		}
		if in {
			there[id] = true
			continue
		}
		if fetched.has(id) {
			continue
		}
		typ, data, err := store.Read(id)
		bad[id] = !readsAs(r.Format, typ, data, err, id)
	}
	for i, path := range written {
		for _, id := range reread(path, indexes[i], r.Format, inPack[i]) {
			there[id] = false
			typ, data, err := store.Read(id)
			bad[id] = !readsAs(r.Format, typ, data, err, id)
		}
	}
	for _, id := range broken {
		if bad[id] {
			left = append(left, id)
			bad[id] = false // said once
		}
	}
	return left, there
}

// packed is an object of a pack, where its entry starts.
type packed struct {
	off int64
	id  object.ID
}

// reread reads the objects es of the pack at path, whose index is x, down
// their delta tree (pack.Tree: each read once, a delta applied to its
// base in hand; one whose base is not among them read as the store reads
// it), by as many workers as there are CPUs, and returns those that do
// not read right there (all of them where the pack cannot be opened).
func reread(path string, x *pack.Index, f object.Format, es []packed) []object.ID {
	if len(es) == 0 {
		return nil
	}
	ids := func(es []packed) []object.ID {
		out := make([]object.ID, len(es))
		for i, e := range es {
			out[i] = e.id
		}
		return out
	}
	file, err := os.Open(path)
	if err != nil {
		return ids(es)
	}
	defer file.Close()
	slices.SortFunc(es, func(a, b packed) int { return cmp.Compare(a.off, b.off) })
	t := &pack.Tree{Starts: make([]int64, len(es)), Bases: make([]int32, len(es))}
	for k, e := range es {
		t.Starts[k] = e.off
	}
	pf := pack.NewFile(file, x, f)
	for k, e := range es {
		t.Bases[k] = pack.Outside
		if h, err := pf.HeaderAt(e.off); err == nil {
			t.Bases[k] = pack.BaseAt(t.Starts, h, x)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), max(len(es)/rereadChunk, 1))
	right := t.Check(context.Background(), pack.TreeCheck{
		Workers: workers,
		Room:    rereadCache / int64(workers),
		NewFile: func() *pack.File {
			pf := pack.NewFile(file, x, f)
			pf.Cache = pack.NewBaseCache(rereadCache / int64(workers))
			return pf
		},
		OK: func(k int, typ object.Type, data []byte) bool { return readsAs(f, typ, data, nil, es[k].id) },
	})
	var failed []packed
	for k, e := range es {
		if !right[k] {
			failed = append(failed, e)
		}
	}
	return ids(failed)
}

// readsAs reports whether a read of id that gave typ, data and err read
// it right: no error, and the data hash to id.
func readsAs(f object.Format, typ object.Type, data []byte, err error, id object.ID) bool {
	if err != nil {
		return false
	}
	got, err := f.Sum(typ, data)
	return err == nil && got == id
}

// hasLoose reports whether the object directory dir holds a loose file
// for id: such an object is read again as the store reads it (the loose
// copy, then the packs), not from one pack alone.
func hasLoose(dir string, id object.ID) bool {
	shard, rest := id.Shard()
	_, err := os.Lstat(filepath.Join(dir, shard, rest))
	return err == nil
}
