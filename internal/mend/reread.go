package mend

import (
	"cmp"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

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

// rereadChunk is how many entries, consecutive in a pack, a worker of
// stillBroken takes at once: its cache then holds the bases they share.
const rereadChunk = 256

// stillBroken reads again every object the verification found broken,
// as git would (a good loose copy first), but those the fetched packs hold
// (the unpack hashed them as they came) and those checked as the packs
// were written again (written whole, hashed), and returns those that
// still cannot be read. Those the packs written again (written) hold, and
// no loose file, are read from there in the order of the pack, so that a
// delta's base is at hand, by as many workers as there are CPUs (git.git
// to v2.0.0 with 1 MiB zeroed mid-pack: 3,542 deltas read again in 0.4 s,
// where one by one through the store 5,055 objects took 1.0 s); one that
// does not read right there is read once more as git would, from
// whatever copy the store finds.
func stillBroken(r *repo.Repo, f *Findings, fetched fetchedPacks, written []string, checked map[object.ID]bool) []object.ID {
	store := loose.Open(batch.OS, r.ObjectDir, loose.Options{Format: r.Format})
	defer store.Close()
	indexes := make([]*pack.Index, len(written)) // nil: one that does not read
	for i, path := range written {
		if data, err := os.ReadFile(strings.TrimSuffix(path, ".pack") + ".idx"); err == nil {
			indexes[i], _ = pack.ParseIndex(data, r.Format)
		}
	}
	find := func(id object.ID) (int, int64) {
		for i, x := range indexes {
			if x == nil {
				continue
			}
			if off, ok := x.FindOffset(id); ok {
				return i, off
			}
		}
		return -1, 0
	}
	inPack := make([][]packed, len(written))
	bad := map[object.ID]bool{}
	broken := f.Report.Broken()
	for _, id := range broken {
		if fetched.has(id) {
			continue
		}
		if i, off := find(id); i >= 0 && !hasLoose(r.ObjectDir, id) {
			if !checked[id] {
				inPack[i] = append(inPack[i], packed{off, id})
			}
			continue
		}
		typ, data, err := store.Read(id)
		bad[id] = !readsAs(r.Format, typ, data, err, id)
	}
	for i, path := range written {
		for _, id := range reread(path, indexes[i], r.Format, inPack[i]) {
			typ, data, err := store.Read(id)
			bad[id] = !readsAs(r.Format, typ, data, err, id)
		}
	}
	var left []object.ID
	for _, id := range broken {
		if bad[id] {
			left = append(left, id)
			bad[id] = false // said once
		}
	}
	return left
}

// packed is an object of a pack, where its entry starts.
type packed struct {
	off int64
	id  object.ID
}

// reread reads the objects es of the pack at path, whose index is x, in
// the order of their offsets, by as many workers as there are CPUs, and
// returns those that do not read right there (all of them where the pack
// cannot be opened).
func reread(path string, x *pack.Index, f object.Format, es []packed) []object.ID {
	if len(es) == 0 {
		return nil
	}
	file, err := os.Open(path)
	if err != nil {
		out := make([]object.ID, len(es))
		for i, e := range es {
			out[i] = e.id
		}
		return out
	}
	defer file.Close()
	slices.SortFunc(es, func(a, b packed) int { return cmp.Compare(a.off, b.off) })
	workers := min(runtime.GOMAXPROCS(0), max(len(es)/rereadChunk, 1))
	next := make(chan []packed)
	var mu sync.Mutex
	var failed []object.ID
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			pf := pack.NewFile(file, x, f)
			pf.Cache = pack.NewBaseCache(rereadCache / int64(workers))
			for chunk := range next {
				for _, e := range chunk {
					typ, data, err := pf.ObjectAt(e.off)
					if !readsAs(f, typ, data, err, e.id) {
						mu.Lock()
						failed = append(failed, e.id)
						mu.Unlock()
					}
				}
			}
		})
	}
	for chunk := range slices.Chunk(es, rereadChunk) {
		next <- chunk
	}
	close(next)
	wg.Wait()
	return failed
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
