package verify

import (
	"context"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// headMax is how many of an entry's first bytes hold its header: a type
// and size, and an offset or an id.
const headMax = 64

// treeBytes is the memory the delta tree takes for each entry of a pack:
// where it starts, its link, and what pack.Tree.Check takes.
const treeBytes = 12 + pack.TreeBytes

// link returns what the header head of entry e says its base is: its
// place in p.entries, or pack.Outside — a whole object, or a base the
// header does not name within the pack (a header that does not parse, a
// base outside it), read as the store reads it.
func (p *packSet) link(head []byte, e entry) int32 {
	h, err := pack.ParseEntryHeader(head, e.start, p.format)
	if err != nil {
		return pack.Outside
	}
	return pack.BaseAt(p.starts, h, p.idx)
}

// tree checks the objects of the pack down its delta tree (pack.Tree):
// each whole entry inflated and hashed, then the deltas on it applied to
// it in hand, down every chain. It returns which entries (in p.entries'
// order) it found whole and hashing to their ids. What it did not (a
// damaged entry, one whose base it could not resolve, one further down a
// chain than its workers' room) is left to be read as the store reads
// it, which says what is wrong. Each of workers holds at most room bytes
// of the objects down a chain.
func (p *packSet) tree(ctx context.Context, skip map[int]string, workers int, room int64, progress func(int)) []bool {
	t := &pack.Tree{Starts: p.starts, Bases: p.links}
	return t.Check(ctx, pack.TreeCheck{
		Workers:  workers,
		Room:     room,
		NewFile:  func() *pack.File { return pack.NewFile(p.f, p.idx, p.format) },
		Skip:     func(k int) bool { return skipped(skip, p.entries[k]) },
		OK:       func(k int, typ object.Type, data []byte) bool { return p.hashes(k, typ, data) },
		Progress: progress,
	})
}

// skipped reports whether skip holds entry e.
func skipped(skip map[int]string, e entry) bool {
	_, bad := skip[e.i]
	return bad
}

// hashes reports whether data, of type typ, hashes to the id the index
// gives entry k.
func (p *packSet) hashes(k int, typ object.Type, data []byte) bool {
	id, err := p.format.Sum(typ, data)
	return err == nil && id == p.idx.ID(p.entries[k].i)
}
