package pack

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
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
	// Level is the compression level of the objects written whole.
	Level int
}

// Rewritten is the pack Rewrite wrote: its trailer, its index entries,
// how many entries were replaced by whole objects and how many left out.
type Rewritten struct {
	Sum      []byte
	Entries  []IndexEntry
	Replaced int
	Dropped  int
}

// Rewrite writes to w the pack held in src, whose entries spans lists in
// the order of their offsets, without a broken copy. The entries of the
// broken ids that have a good copy elsewhere are left out; every other
// broken entry, every entry whose bytes are not what its CRC says or lie
// past the end of src (a pack cut short), and every delta whose base was
// left out, is written as a whole object (a delta on a base left out is
// applied to the base's good copy, and its result's hash checked); every
// other entry is copied as it is, but an OFS_DELTA's header, written again
// with the distance to where its base now lies. src is read once, from
// start to end. The header is written anew with the count of entries
// kept, and the trailer computed. w is written from a goroutine of its
// own, beside the reading of src.
func Rewrite(w io.Writer, src io.ReaderAt, f object.Format, spans []Span, m Mend) (out Rewritten, err error) {
	dropped := map[int64]object.ID{} // the entries left out, by offset
	for _, s := range spans {
		if m.Broken[s.ID] && m.Elsewhere != nil && m.Elsewhere(s.ID) {
			dropped[s.Start] = s.ID
		}
	}
	bw := newBehind(w)
	defer func() {
		if cerr := bw.close(); err == nil {
			err = cerr
		}
	}()
	a, err := newAppender(bw, f.NewChecksum(), m.Level)
	if err != nil {
		return out, err
	}
	a.bw.Write(AppendHeader(nil, Header{Version: 2, Count: uint32(len(spans) - len(dropped))}))
	a.off = HeaderSize
	a.added = make([]IndexEntry, 0, len(spans)-len(dropped))
	c := copier{a: a, f: f, m: m, dropped: dropped, moved: make(map[int64]int64, len(spans))}
	c.in = bufio.NewReaderSize(io.NewSectionReader(src, 0, 1<<62), 1<<20)
	for _, s := range spans {
		if _, ok := dropped[s.Start]; ok {
			out.Dropped++
			continue
		}
		replaced, err := c.entry(s)
		if err != nil {
			return out, err
		}
		if replaced {
			out.Replaced++
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

// copier is the state of one Rewrite: where its source is read, where
// each entry kept went, and the entries it left out.
type copier struct {
	a       *appender
	f       object.Format
	m       Mend
	in      *bufio.Reader
	at      int64               // where in is
	raw     []byte              // the bytes of the entry being copied
	moved   map[int64]int64     // old offset -> new
	dropped map[int64]object.ID // the entries left out, by offset
}

// entry writes the entry s to the new pack: copied, or whole where its
// bytes are broken or its base was left out. It reports whether it was
// written whole.
func (c *copier) entry(s Span) (bool, error) {
	c.moved[s.Start] = c.a.off
	ok := !c.m.Broken[s.ID]
	if ok {
		c.raw, ok = readSpan(c.in, &c.at, s, c.raw)
	}
	if ok {
		switch err := c.copy(s); {
		case err == nil:
			return false, nil
		case errors.Is(err, errBaseLeftOut):
		default:
			ok = false
		}
	}
	if ok {
		if b, err := c.onGoodBase(s); err == nil {
			return true, c.a.add(b)
		}
	}
	b, err := c.m.Whole(s.ID)
	if err != nil {
		return false, fmt.Errorf("pack: no good copy of %s: %w", s.ID, err)
	}
	return true, c.a.add(b)
}

// errBaseLeftOut is copy's answer for a delta whose base was left out.
var errBaseLeftOut = errors.New("pack: the delta's base was left out")

// copy writes the entry s, whose bytes are c.raw, as it will lie in the
// new pack: its bytes as they are, but an OFS_DELTA's distance to its
// base, which lies where moved says.
func (c *copier) copy(s Span) error {
	r := bytes.NewReader(c.raw)
	e, err := readEntryHeader(r, s.Start, c.f)
	if err != nil {
		return err
	}
	switch e.Type {
	case object.OfsDelta:
		if _, ok := c.dropped[e.BaseOffset]; ok {
			return errBaseLeftOut
		}
		base, ok := c.moved[e.BaseOffset]
		if !ok {
			return fmt.Errorf("pack: the base of the delta at %d is not an entry before it", s.Start)
		}
		head := AppendOfsDistance(AppendEntryHeader(nil, object.OfsDelta, e.Size), c.a.off-base)
		c.a.raw(s.ID, head, c.raw[len(c.raw)-r.Len():])
		return nil
	case object.RefDelta:
		if c.m.Broken[e.BaseID] && c.m.Elsewhere != nil && c.m.Elsewhere(e.BaseID) {
			return errBaseLeftOut
		}
	}
	c.a.raw(s.ID, c.raw, nil)
	return nil
}

// onGoodBase makes the whole object of the delta s, whose bytes are c.raw
// and whose base was left out: the delta applied to the base's good copy,
// the result's hash checked.
func (c *copier) onGoodBase(s Span) (Base, error) {
	br := bufio.NewReader(bytes.NewReader(c.raw))
	e, err := readEntryHeader(br, s.Start, c.f)
	if err != nil {
		return Base{}, err
	}
	baseID := e.BaseID
	if e.Type == object.OfsDelta {
		baseID = c.dropped[e.BaseOffset]
	}
	delta, err := inflateAll(br, e.Size)
	if err != nil {
		return Base{}, err
	}
	base, err := c.m.Whole(baseID)
	if err != nil {
		return Base{}, err
	}
	data, err := ApplyDelta(nil, base.Data, delta)
	if err != nil {
		return Base{}, err
	}
	if id, err := c.f.Sum(base.Type, data); err != nil || id != s.ID {
		return Base{}, fmt.Errorf("pack: the delta %s applied to its base's good copy hashes to %s", s.ID, id)
	}
	return Base{ID: s.ID, Type: base.Type, Data: data}, nil
}

// readSpan reads the bytes of s from in, which is at offset *at of the
// pack (entries come in the order of their offsets), into buf, and
// reports whether they are what its CRC says: false too where the pack
// ends before them.
func readSpan(in *bufio.Reader, at *int64, s Span, buf []byte) ([]byte, bool) {
	if s.Start < *at || s.End <= s.Start {
		return buf, false
	}
	if n, err := in.Discard(int(s.Start - *at)); err != nil {
		*at += int64(n)
		return buf, false
	}
	*at = s.Start
	if n := s.End - s.Start; int64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:s.End-s.Start]
	n, err := io.ReadFull(in, buf)
	*at += int64(n)
	if err != nil {
		return buf, false
	}
	return buf, !s.HasCRC || crc32.ChecksumIEEE(buf) == s.CRC
}
