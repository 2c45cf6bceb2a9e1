package pack

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/object"
)

// Span is an entry of a pack: the object's id, where its bytes begin and
// end in the pack, and their CRC-32 as the index records it (HasCRC false
// for an index of version 1, which records none).
type Span struct {
	ID         object.ID
	Start, End int64
	CRC        uint32
	HasCRC     bool
}

// Rewrite writes to w the pack held in src, whose entries spans lists in
// the order of their offsets, without a broken copy: the entries of the
// ids in broken, and every entry whose bytes are not what its CRC says or
// lie past the end of src (a pack cut short), are replaced by whole
// objects that whole gives, deflated at level; every other entry is copied
// as it is, but an OFS_DELTA's header, written again with the distance to
// where its base now lies. src is read once, from start to end. The header
// is written anew with the count of spans, and the trailer computed. It
// returns the trailer, the index entries of the new pack, and how many
// entries it replaced.
func Rewrite(w io.Writer, src io.ReaderAt, f object.Format, spans []Span, broken map[object.ID]bool, whole func(object.ID) (Base, error), level int) ([]byte, []IndexEntry, int, error) {
	h := f.NewChecksum()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<20)
	bw.Write(AppendHeader(nil, Header{Version: 2, Count: uint32(len(spans))}))
	in := bufio.NewReaderSize(io.NewSectionReader(src, 0, 1<<62), 1<<20)
	var at int64                               // where in is
	moved := make(map[int64]int64, len(spans)) // old offset -> new
	out := make([]IndexEntry, 0, len(spans))
	off := int64(HeaderSize)
	replaced := 0
	var buf bytes.Buffer
	var raw []byte
	zw, err := zlib.NewWriterLevel(&buf, level)
	if err != nil {
		return nil, nil, 0, err
	}
	for _, s := range spans {
		buf.Reset()
		ok := !broken[s.ID]
		if ok {
			raw, ok = readSpan(in, &at, s, raw)
		}
		if ok {
			ok = copyEntry(&buf, raw, s, f, moved, off) == nil
		}
		if !ok {
			buf.Reset()
			b, err := whole(s.ID)
			if err != nil {
				return nil, nil, 0, fmt.Errorf("pack: no good copy of %s: %w", s.ID, err)
			}
			buf.Write(AppendEntryHeader(nil, b.Type, int64(len(b.Data))))
			zw.Reset(&buf)
			zw.Write(b.Data)
			if err := zw.Close(); err != nil {
				return nil, nil, 0, err
			}
			replaced++
		}
		moved[s.Start] = off
		out = append(out, IndexEntry{ID: s.ID, Offset: off, CRC32: crc32.ChecksumIEEE(buf.Bytes())})
		bw.Write(buf.Bytes())
		off += int64(buf.Len())
	}
	if err := bw.Flush(); err != nil {
		return nil, nil, 0, err
	}
	sum := h.Sum(nil)
	if _, err := w.Write(sum); err != nil {
		return nil, nil, 0, err
	}
	return sum, out, replaced, nil
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

// copyEntry appends to buf the entry raw (at s of the old pack) as it will
// lie at offset at of the new pack: its bytes as they are, but an
// OFS_DELTA's distance to its base, which lies where moved says.
func copyEntry(buf *bytes.Buffer, raw []byte, s Span, f object.Format, moved map[int64]int64, at int64) error {
	r := bytes.NewReader(raw)
	e, err := readEntryHeader(r, s.Start, f)
	if err != nil {
		return err
	}
	if e.Type != object.OfsDelta {
		buf.Write(raw)
		return nil
	}
	base, ok := moved[e.BaseOffset]
	if !ok {
		return fmt.Errorf("pack: the base of the delta at %d is not an entry before it", s.Start)
	}
	head := AppendEntryHeader(nil, object.OfsDelta, e.Size)
	buf.Write(AppendOfsDistance(head, at-base))
	buf.Write(raw[len(raw)-r.Len():])
	return nil
}
