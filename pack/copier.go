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
	kept    map[object.ID]bool  // the broken entries not left out
}

// How an entry was written: as it was (but an OFS_DELTA's distance), as
// another pack holds its good copy, or as a whole object.
const (
	wroteAsIs = iota
	wroteCopy
	wroteWhole
)

// entry writes the entry s to the new pack: copied, or from its good copy
// where its bytes are broken or its base was left out. It returns how it
// was written.
func (c *copier) entry(s Span) (int, error) {
	c.moved[s.Start] = c.a.off
	ok := !c.m.Broken[s.ID]
	if ok {
		c.raw, ok = readSpan(c.in, &c.at, s, c.raw)
	}
	if ok {
		switch err := c.copy(s); {
		case err == nil:
			return wroteAsIs, nil
		case errors.Is(err, errBaseLeftOut):
		default:
			ok = false
		}
	}
	if ok {
		if b, err := c.onGoodBase(s); err == nil {
			return wroteWhole, c.a.add(b)
		}
	}
	if c.fromCopy(s) {
		return wroteCopy, nil
	}
	b, err := c.m.Whole(s.ID)
	if err != nil {
		return wroteAsIs, fmt.Errorf("pack: no good copy of %s: %w", s.ID, err)
	}
	return wroteWhole, c.a.add(b)
}

// fromCopy writes the entry s as another pack holds its good copy
// (Mend.Copy), where there is one that can lie here: a whole object, or a
// delta on a broken object this pack keeps (its base is then written from
// a good copy too). It reports whether it did.
func (c *copier) fromCopy(s Span) bool {
	if c.m.Copy == nil {
		return false
	}
	cp, ok := c.m.Copy(s.ID)
	if !ok {
		return false
	}
	head := AppendEntryHeader(nil, cp.Type, cp.Size)
	switch {
	case cp.Type.IsObject():
	case cp.Type == object.RefDelta && c.kept[cp.Base] && cp.Base != s.ID:
		head = append(head, cp.Base.Bytes()...)
	default:
		return false
	}
	c.a.raw(s.ID, head, cp.Data)
	return true
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
