package pack

import (
	"context"
	"slices"
	"sync"

	"github.com/git-durable/git-durable/object"
)

// Outside is the base of a Tree's entry that has none among its entries:
// a whole object, or a delta on an object elsewhere (read as
// File.ObjectAt reads it).
const Outside int32 = -1

// Tree is entries of a pack laid out as deltas on their bases: where each
// starts, and its base's place among them, or Outside.
type Tree struct {
	Starts []int64
	Bases  []int32
}

// BaseAt returns the place among starts (where entries of a pack start,
// in order) of the base of the delta e, loc finding a REF_DELTA's: Outside
// where e is whole, or its base is not among them.
func BaseAt(starts []int64, e Entry, loc Locator) int32 {
	off := e.BaseOffset
	switch e.Type {
	case object.OfsDelta:
	case object.RefDelta:
		o, ok := loc.FindOffset(e.BaseID)
		if !ok {
			return Outside
		}
		off = o
	default:
		return Outside
	}
	k, ok := slices.BinarySearch(starts, off)
	if !ok || off == e.Offset {
		return Outside
	}
	return int32(k)
}

// TreeBytes is the memory Check takes for each entry of a Tree: its place
// among its base's deltas (twice while they are laid out), and whether it
// was found right.
const TreeBytes = 13

// rootsAtOnce is how many entries whose base is Outside, consecutive in
// the pack, a worker of Check takes at once with the deltas down from
// them.
const rootsAtOnce = 64

// TreeCheck says how Tree.Check reads: by Workers at once, each with a
// File of its own (NewFile) and at most Room bytes of objects held down
// the chain it is on; Skip, when set, says which entries not to read (nor
// the deltas on them); OK is told of each object read, and says whether
// it is right; Progress, when set, is told how many more were.
type TreeCheck struct {
	Workers  int
	Room     int64
	NewFile  func() *File
	Skip     func(k int) bool
	OK       func(k int, typ object.Type, data []byte) bool
	Progress func(n int)
}

// Check reads the entries of t as git index-pack resolves a pack: each
// whose base is Outside as File.ObjectAt reads it, then the deltas on it
// applied to it in hand, and those on them, down every chain — each entry
// inflated once, wherever in the pack its base lies. A worker that has
// nothing to do takes over the deltas on an object another has in hand
// (one file's history can be most of a pack). It returns which entries it
// read and OK found right. One it did not (it does not read, OK refused
// it or its base, it lies further down a chain than a worker's room or
// MaxDeltaDepth, ctx was cancelled) is for the caller to read otherwise.
func (t *Tree) Check(ctx context.Context, c TreeCheck) []bool {
	first, kids := t.children()
	right := make([]bool, len(t.Starts))
	work := make(chan treeWork)
	var pending, wg sync.WaitGroup
	for range max(c.Workers, 1) {
		wg.Go(func() {
			w := &walker{ctx: ctx, t: t, c: &c, file: c.NewFile(), first: first, kids: kids, right: right, work: work, pending: &pending}
			for tw := range work {
				n := 0
				for _, k := range tw.roots {
					n += w.root(k)
				}
				if tw.roots == nil {
					n = w.below(tw.k, tw.typ, tw.data, tw.depth)
				}
				if c.Progress != nil {
					c.Progress(n)
				}
				pending.Done()
			}
		})
	}
	var rs []int32
	send := func() {
		pending.Add(1)
		select {
		case work <- treeWork{roots: rs}:
		case <-ctx.Done():
			pending.Done()
		}
		rs = nil
	}
	for k, b := range t.Bases {
		if ctx.Err() != nil {
			break
		}
		if b != Outside || c.Skip != nil && c.Skip(k) {
			continue
		}
		if rs = append(rs, int32(k)); len(rs) == rootsAtOnce {
			send()
		}
	}
	if len(rs) > 0 && ctx.Err() == nil {
		send()
	}
	pending.Wait()
	close(work)
	wg.Wait()
	return right
}

// treeWork is what a worker of Check takes: entries whose base is Outside
// (roots), or the deltas on entry k, whose object is typ and data, depth
// deltas down from a whole object.
type treeWork struct {
	roots []int32
	k     int32
	typ   object.Type
	data  []byte
	depth int
}

// children lays out the deltas on each entry: those on entry k are
// kids[first[k]:first[k+1]], in the pack's order.
func (t *Tree) children() (first, kids []int32) {
	n := len(t.Bases)
	first = make([]int32, n+1)
	for _, b := range t.Bases {
		if b >= 0 {
			first[b+1]++
		}
	}
	for k := range n {
		first[k+1] += first[k]
	}
	kids = make([]int32, first[n])
	at := slices.Clone(first[:n])
	for k, b := range t.Bases {
		if b >= 0 {
			kids[at[b]] = int32(k)
			at[b]++
		}
	}
	return first, kids
}

// walker is a worker of Check: it holds the objects down the chain it is
// on, held bytes of them.
type walker struct {
	ctx         context.Context
	t           *Tree
	c           *TreeCheck
	file        *File
	first, kids []int32
	right       []bool
	held        int64
	work        chan treeWork // where an idle worker takes what is handed over
	pending     *sync.WaitGroup
}

// root reads entry k, whose base is Outside (a whole object, or a delta
// read as ObjectAt reads it), and the deltas down from it, and returns
// how many it found right.
func (w *walker) root(k int32) int {
	if w.ctx.Err() != nil {
		return 0
	}
	off := w.t.Starts[k]
	e, err := w.file.HeaderAt(off)
	if err != nil {
		return 0
	}
	typ, depth := e.Type, 0
	var data []byte
	if typ.IsDelta() {
		// A delta on an object elsewhere: the chain below it is as deep
		// as ObjectAt allows, counted from the whole object.
		if depth, err = w.file.Depth(off); err == nil {
			typ, data, err = w.file.ObjectAt(off)
		}
	} else {
		_, data, err = w.file.EntryAt(off)
	}
	if err != nil || !w.ok(k, typ, data) {
		return 0
	}
	return 1 + w.below(k, typ, data, depth)
}

// below reads the deltas on entry k, whose object is typ and data, depth
// deltas down from a whole object, and those down from them; it returns
// how many it found right.
func (w *walker) below(k int32, typ object.Type, data []byte, depth int) int {
	if depth >= MaxDeltaDepth {
		return 0 // too deep for ObjectAt too: it says so
	}
	w.held += int64(len(data))
	defer func() { w.held -= int64(len(data)) }()
	n := 0
	for _, d := range w.kids[w.first[k]:w.first[k+1]] {
		if w.ctx.Err() != nil {
			break // what is not found right is the caller's to read
		}
		if w.c.Skip != nil && w.c.Skip(int(d)) {
			continue
		}
		_, delta, err := w.file.EntryAt(w.t.Starts[d])
		if err != nil {
			continue
		}
		out, err := ApplyDelta(nil, data, delta)
		if err != nil || !w.ok(d, typ, out) {
			continue
		}
		n++
		if w.first[d] == w.first[d+1] || w.held+int64(len(out)) > w.c.Room || w.handOver(d, typ, out, depth+1) {
			continue
		}
		n += w.below(d, typ, out, depth+1)
	}
	return n
}

// handOver gives the deltas on entry k, whose object is typ and data, to
// a worker that waits for work, where one does, and reports whether it
// did.
func (w *walker) handOver(k int32, typ object.Type, data []byte, depth int) bool {
	w.pending.Add(1)
	select {
	case w.work <- treeWork{k: k, typ: typ, data: data, depth: depth}:
		return true
	default:
		w.pending.Done()
		return false
	}
}

// ok asks TreeCheck.OK about entry k, and notes its answer.
func (w *walker) ok(k int32, typ object.Type, data []byte) bool {
	right := w.c.OK(int(k), typ, data)
	w.right[k] = right
	return right
}
