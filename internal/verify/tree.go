package verify

import (
	"context"
	"slices"
	"sync"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// What an entry's link says (else it is the base's place in the pack's
// order): a whole object, or a base the header does not name within the
// pack (a header that does not parse, a base outside it).
const (
	whole   int32 = -1
	unknown int32 = -2
)

// headMax is how many of an entry's first bytes hold its header: a type
// and size, and an offset or an id.
const headMax = 64

// rootsAtOnce is how many whole entries, consecutive in the pack, a worker
// takes at once with what their deltas reach.
const rootsAtOnce = 256

// treeBytes is the memory the delta tree takes for each entry of a pack:
// its link, its place among its base's deltas (twice while it is laid
// out), and whether it was checked.
const treeBytes = 17

// link returns what the header head of entry e says its base is: whole,
// the base's place in p.entries, or unknown.
func (p *packSet) link(head []byte, e entry) int32 {
	h, err := pack.ParseEntryHeader(head, e.start, p.format)
	if err != nil {
		return unknown
	}
	var off int64
	switch h.Type {
	case object.Commit, object.Tree, object.Blob, object.Tag:
		return whole
	case object.OfsDelta:
		off = h.BaseOffset
	case object.RefDelta:
		o, ok := p.idx.FindOffset(h.BaseID)
		if !ok {
			return unknown
		}
		off = o
	default:
		return unknown
	}
	k, ok := slices.BinarySearchFunc(p.entries, off, func(e entry, off int64) int {
		switch {
		case e.start < off:
			return -1
		case e.start > off:
			return 1
		}
		return 0
	})
	if !ok || p.entries[k].start == e.start {
		return unknown
	}
	return int32(k)
}

// tree checks the objects of the pack as git index-pack resolves them:
// each whole entry inflated and hashed, then the deltas on it applied to
// it in hand, and those on them, down every chain — each entry inflated
// once, wherever in the pack its base lies. It returns which entries (in
// p.entries' order) it found whole and hashing to their ids. What it did
// not (a damaged entry, one whose base it could not resolve, one further
// down a chain than its workers' room) is left to be read as the store
// reads it, which says what is wrong. Each of workers holds at most room
// bytes of the objects down a chain.
func (p *packSet) tree(ctx context.Context, skip map[int]string, workers int, room int64, progress func(int)) []bool {
	first, kids := p.children()
	checked := make([]bool, len(p.entries))
	roots := make(chan []int32)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			w := &walker{p: p, file: pack.NewFile(p.f, p.idx, p.format), first: first, kids: kids,
				checked: checked, skip: skip, room: room}
			for rs := range roots {
				n := 0
				for _, k := range rs {
					n += w.root(k)
				}
				progress(n)
			}
		})
	}
	var rs []int32
	for k, l := range p.links {
		if ctx.Err() != nil {
			break
		}
		if l != whole || skipped(skip, p.entries[k]) {
			continue
		}
		if rs = append(rs, int32(k)); len(rs) == rootsAtOnce {
			roots <- rs
			rs = nil
		}
	}
	if len(rs) > 0 && ctx.Err() == nil {
		roots <- rs
	}
	close(roots)
	wg.Wait()
	return checked
}

// skipped reports whether skip holds entry e.
func skipped(skip map[int]string, e entry) bool {
	_, bad := skip[e.i]
	return bad
}

// children lays out the deltas on each entry: those on entry k are
// kids[first[k]:first[k+1]], in the pack's order.
func (p *packSet) children() (first, kids []int32) {
	n := len(p.links)
	first = make([]int32, n+1)
	for _, b := range p.links {
		if b >= 0 {
			first[b+1]++
		}
	}
	for k := range n {
		first[k+1] += first[k]
	}
	kids = make([]int32, first[n])
	at := slices.Clone(first[:n])
	for k, b := range p.links {
		if b >= 0 {
			kids[at[b]] = int32(k)
			at[b]++
		}
	}
	return first, kids
}

// walker is a worker of tree: it holds the objects down the chain it is
// on, at most room bytes of them.
type walker struct {
	p           *packSet
	file        *pack.File
	first, kids []int32
	checked     []bool
	skip        map[int]string
	room, held  int64
}

// root checks the whole entry k and the deltas down from it, and returns
// how many it found right.
func (w *walker) root(k int32) int {
	e, data, err := w.file.EntryAt(w.p.entries[k].start)
	if err != nil || !w.hashes(k, e.Type, data) {
		return 0
	}
	return 1 + w.below(k, e.Type, data, 0)
}

// below checks the deltas on entry k, whose object is typ and data, depth
// deltas down its chain, and those down from them; it returns how many it
// found right.
func (w *walker) below(k int32, typ object.Type, data []byte, depth int) int {
	if depth >= pack.MaxDeltaDepth {
		return 0 // too deep for the store: it says so
	}
	w.held += int64(len(data))
	defer func() { w.held -= int64(len(data)) }()
	n := 0
	for _, c := range w.kids[w.first[k]:w.first[k+1]] {
		if len(w.skip) > 0 && skipped(w.skip, w.p.entries[c]) {
			continue
		}
		_, delta, err := w.file.EntryAt(w.p.entries[c].start)
		if err != nil {
			continue
		}
		out, err := pack.ApplyDelta(nil, data, delta)
		if err != nil || !w.hashes(c, typ, out) {
			continue
		}
		n++
		if w.first[c] < w.first[c+1] && w.held+int64(len(out)) <= w.room {
			n += w.below(c, typ, out, depth+1)
		}
	}
	return n
}

// hashes reports whether data, of type typ, hashes to the id the index
// gives entry k, and notes it checked if so.
func (w *walker) hashes(k int32, typ object.Type, data []byte) bool {
	id, err := w.p.format.Sum(typ, data)
	ok := err == nil && id == w.p.idx.ID(w.p.entries[k].i)
	w.checked[k] = ok
	return ok
}
