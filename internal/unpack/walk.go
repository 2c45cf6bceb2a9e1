package unpack

import (
	"sort"

	"github.com/git-durable/git-durable/object"
)

// The forest of the second pass (see later.go), and the walks down it.

// forest is what the second pass walks of the pack's delta trees: every
// entry put off, and every entry on the way down to one from the full
// object at the root of its tree (kept) or from the nearest base done
// (exploded).
type forest struct {
	roots []int32 // the largest trees first
	edges []edge  // by base; for each base, the smallest subtrees first
}

// edge links a base entry to a delta on it.
type edge struct {
	base, kid int32
	size      int32 // entries in the kid's subtree, the kid's included
}

// handOff is the size of a subtree from which a walk hands the subtree to
// another worker, if one is free: the trees of a pack are few and uneven
// (in git.git, most deltas are in a handful of trees).
const handOff = 64

// plant finds the forest of the deltas put off; u.mu must not be held.
func (u *resolver) plant() *forest {
	u.mu.Lock()
	defer u.mu.Unlock()
	f := &forest{}
	for i := range int32(u.entries.len()) {
		if !u.entries.at(i).later {
			continue
		}
		for x := i; !u.entries.at(x).needed; {
			e := u.entries.at(x)
			e.needed = true
			if e.base < 0 || e.done && u.dest.readsByID() {
				f.roots = append(f.roots, x)
				break
			}
			f.edges = append(f.edges, edge{base: e.base, kid: x})
			x = e.base
		}
	}
	// Sizes from the last entry back: a delta comes after its base.
	sort.Slice(f.edges, func(a, b int) bool { return f.edges[a].kid > f.edges[b].kid })
	size := map[int32]int32{}
	for i := range f.edges {
		e := &f.edges[i]
		e.size = size[e.kid] + 1
		delete(size, e.kid)
		size[e.base] += e.size
	}
	sort.Slice(f.roots, func(a, b int) bool { return size[f.roots[a]] > size[f.roots[b]] })
	// A walk holds a base while kids are left to take: the smallest
	// subtrees first, so that the last one, whose walk goes on without
	// the base, is the largest.
	sort.Slice(f.edges, func(a, b int) bool {
		x, y := f.edges[a], f.edges[b]
		if x.base != y.base {
			return x.base < y.base
		}
		if x.size != y.size {
			return x.size < y.size
		}
		return x.kid < y.kid
	})
	return f
}

// kids returns the edges from entry k.
func (f *forest) kids(k int32) []edge {
	i := sort.Search(len(f.edges), func(i int) bool { return f.edges[i].base >= k })
	j := i + sort.Search(len(f.edges)-i, func(n int) bool { return f.edges[i+n].base > k })
	return f.edges[i:j]
}

// walk is a job of the second pass: the subtree of a full object, or that
// of an entry handed off by another walk with its data.
type walk struct {
	f    *forest
	typ  object.Type
	data []byte
}

// frame is an entry on the path of a walk, with its data (nil when
// dropped) and the kids left to take.
type frame struct {
	idx  int32
	data []byte
	kids []edge
}

// resolveTree walks the subtree of entry root (a full object, or an entry
// whose data w holds) down to every delta put off in it: each entry on the
// way is read back from the pack and applied to its base, and each delta
// put off is resolved (hashed, recorded, and the deltas waiting on it
// resolved in turn). A large subtree goes to another worker, if one is
// free.
func (u *resolver) resolveTree(h *object.Hasher, root int32, w *walk) {
	f, typ, data := w.f, w.typ, w.data
	if data == nil {
		var err error
		if typ, data, err = u.derive(root); err != nil {
			u.fail(err)
			return
		}
	}
	stack := []frame{{root, data, f.kids(root)}}
	held := int64(len(data))
	for len(stack) > 0 {
		if err := u.ctx.Err(); err != nil {
			u.fail(err)
			return
		}
		top := &stack[len(stack)-1]
		if len(top.kids) == 0 {
			held -= int64(len(top.data))
			stack = stack[:len(stack)-1]
			continue
		}
		k, size := top.kids[0].kid, top.kids[0].size
		top.kids = top.kids[1:]
		base := top.data
		var err error
		if base == nil { // dropped on the way down: derived again
			if _, base, err = u.derive(top.idx); err != nil {
				u.fail(err)
				return
			}
			top.data = base
			held += int64(len(base))
		}
		if len(top.kids) == 0 { // its last kid: the walk goes on without it
			held -= int64(len(base))
			stack = stack[:len(stack)-1]
		}
		if data, err = u.laterApply(h, k, typ, base); err != nil {
			u.fail(err)
			return
		}
		if kids := f.kids(k); len(kids) > 0 {
			if size >= handOff && len(stack) > 0 && u.handOff(k, &walk{f, typ, data}) {
				continue
			}
			stack = append(stack, frame{k, data, kids})
			held += int64(len(data))
			for i := 0; held > walkMax && i < len(stack)-1; i++ {
				held -= int64(len(stack[i].data))
				stack[i].data = nil
			}
		}
	}
}

// derive returns the data of entry k, done: cached, held back (--strict),
// or read back, from the kept pack (its chain applied again) or from the
// store.
func (u *resolver) derive(k int32) (object.Type, []byte, error) {
	u.mu.Lock()
	id := u.entries.id(k)
	u.mu.Unlock()
	if typ, data, ok := u.cache.Get(id); ok {
		return typ, data, nil
	}
	if got, err := u.dest.objectAt(u.offsetOf(k)); got.ok || err != nil {
		return got.typ, got.data, err
	}
	if u.held != nil {
		if typ, data, ok := u.held.get(id); ok {
			return typ, data, nil
		}
	}
	typ, data, err := u.dest.read(id)
	if err != nil {
		return object.Bad, nil, &BaseError{ID: id, Err: err}
	}
	return typ, data, nil
}

// handOff gives the subtree of entry k to another worker if the queue has
// room, and says whether it did. The walk that hands it off has more to do:
// its worker is not the one left waiting.
func (u *resolver) handOff(k int32, w *walk) bool {
	return u.drv.trySend(&job{idx: k, tree: w})
}

// laterApply derives entry k from its base's data: a delta put off is
// resolved; an entry done before is only derived again, for the deltas
// below it.
func (u *resolver) laterApply(h *object.Hasher, k int32, typ object.Type, base []byte) ([]byte, error) {
	delta, err := u.laterDelta(k)
	if err != nil {
		return nil, err
	}
	data, err := applyDelta(base, delta)
	if err != nil {
		return nil, &DeltaError{Err: err}
	}
	u.work.Applied()
	u.mu.Lock()
	later := u.entries.at(k).later
	u.entries.at(k).later = false
	u.mu.Unlock()
	if later {
		u.resolveAll(h, u.settle(h, k, typ, data))
	}
	return data, nil
}
