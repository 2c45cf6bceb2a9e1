package pack

import (
	"bufio"
	"io"

	"github.com/git-durable/git-durable/object"
)

// Span is an entry of a pack: the object's id, its position in the
// pack's index (its rank by id), where its bytes begin and end in the
// pack, and their CRC-32 as the index records it (HasCRC false for an
// index of version 1, which records none).
type Span struct {
	ID         object.ID
	Pos        int
	Start, End int64
	CRC        uint32
	HasCRC     bool
}

// Mend is what Rewrite puts right in a damaged pack.
type Mend struct {
	// Broken holds the ids whose entries are known broken.
	Broken map[object.ID]bool
	// Elsewhere, when set, reports whether a good copy of a broken id
	// lies in another pack: its entry is then left out, not replaced.
	Elsewhere func(object.ID) bool
	// Whole gives the good copy of an object, its hash checked.
	Whole func(object.ID) (Base, error)
	// Copy, when set, gives the good copy of an object as another pack
	// holds it (ReadCopy), written in place of the broken entry as it is
	// — nothing inflated, applied or deflated again — where it is whole
	// or a delta on an object this pack keeps; else Whole's is written.
	Copy func(object.ID) (Copied, bool)
	// Level is the compression level of the objects written whole.
	Level int
}

// Rewritten is the pack Rewrite wrote: its trailer, its index entries,
// the ids of the entries it replaced by whole objects (each of which
// hashed to its id as it was written), how many it replaced by another
// pack's entries (Mend.Copy: not hashed here), and how many it left out.
type Rewritten struct {
	Sum     []byte
	Entries []IndexEntry
	Whole   []object.ID
	Copied  int
	Dropped int
}

// Rewrite writes to w the pack held in src, whose entries spans lists in
// the order of their offsets, without a broken copy. The entries of the
// broken ids that have a good copy elsewhere are left out; every other
// broken entry, every entry whose bytes are not what its CRC says or lie
// past the end of src (a pack cut short), and every delta whose base was
// left out, is written from its good copy — another pack's entry as it
// is (Mend.Copy), or a whole object (a delta on a base left out is
// applied to the base's good copy, and its result's hash checked); every
// other entry is copied as it is, but an OFS_DELTA's header, written again
// with the distance to where its base now lies. src is read once, from
// start to end. The header is written anew with the count of entries
// kept, and the trailer computed. w is written, and the trailer's hash
// computed, from a goroutine of their own, beside the reading of src.
func Rewrite(w io.Writer, src io.ReaderAt, f object.Format, spans []Span, m Mend) (out Rewritten, err error) {
	dropped := map[int64]object.ID{} // the entries left out, by offset
	kept := map[object.ID]bool{}     // the broken ones kept: a copy's delta may name them
	for _, s := range spans {
		if m.Broken[s.ID] {
			if m.Elsewhere != nil && m.Elsewhere(s.ID) {
				dropped[s.Start] = s.ID
			} else {
				kept[s.ID] = true
			}
		}
	}
	bw := newBehind(w, f.NewChecksum())
	defer func() {
		if cerr := bw.close(); err == nil {
			err = cerr
		}
	}()
	a, err := newSummed(bw, bw, bw.sum, m.Level)
	if err != nil {
		return out, err
	}
	a.bw.Write(AppendHeader(nil, Header{Version: 2, Count: uint32(len(spans) - len(dropped))}))
	a.off = HeaderSize
	a.added = make([]IndexEntry, 0, len(spans)-len(dropped))
	c := copier{a: a, f: f, m: m, dropped: dropped, kept: kept, moved: make(map[int64]int64, len(spans))}
	c.in = bufio.NewReaderSize(io.NewSectionReader(src, 0, 1<<62), 1<<20)
	for _, s := range spans {
		if _, ok := dropped[s.Start]; ok {
			out.Dropped++
			continue
		}
		how, err := c.entry(s)
		if err != nil {
			return out, err
		}
		switch how {
		case wroteWhole:
			out.Whole = append(out.Whole, s.ID)
		case wroteCopy:
			out.Copied++
		}
	}
	out.Sum, out.Entries, err = a.finish()
	return out, err
}

// IndexOrder returns the entries of the pack Rewrite wrote from the pack
// of spans (which hold each entry's position in the old pack's index) in
// the order of the new pack's index, by id, and for each entry of the new
// pack, in the order of the pack, its position in that index (what a .rev
// file lists): both without a sort, the old index being sorted already.
func (r Rewritten) IndexOrder(spans []Span) ([]IndexEntry, []uint32) {
	at := make([]int, len(spans)) // old index position -> new entry + 1
	k := 0
	for _, s := range spans {
		if k < len(r.Entries) && r.Entries[k].ID == s.ID {
			k++
			at[s.Pos] = k
		}
	}
	byID := make([]IndexEntry, 0, len(r.Entries))
	rev := make([]uint32, len(r.Entries))
	for _, e := range at {
		if e > 0 {
			rev[e-1] = uint32(len(byID))
			byID = append(byID, r.Entries[e-1])
		}
	}
	return byID, rev
}
