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

// Span is an entry of a pack: the object's id, and where its bytes begin
// and end in the pack.
type Span struct {
	ID         object.ID
	Start, End int64
}

// Rewrite writes to w the pack held in src, whose entries spans lists in
// the order of their offsets, with the entries of the ids in broken
// replaced by whole objects that whole gives, deflated at level; every
// other entry is copied as it is, but an OFS_DELTA's header, written again
// with the distance to where its base now lies. The header is written
// anew with the count of spans, and the trailer computed. It returns the
// trailer and the index entries of the new pack. A broken entry may lie
// past the end of src (a pack cut short): it is never read.
func Rewrite(w io.Writer, src io.ReaderAt, f object.Format, spans []Span, broken map[object.ID]bool, whole func(object.ID) (Base, error), level int) ([]byte, []IndexEntry, error) {
	h := f.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<20)
	bw.Write(AppendHeader(nil, Header{Version: 2, Count: uint32(len(spans))}))
	moved := make(map[int64]int64, len(spans)) // old offset -> new
	out := make([]IndexEntry, 0, len(spans))
	off := int64(HeaderSize)
	var buf bytes.Buffer
	zw, err := zlib.NewWriterLevel(&buf, level)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range spans {
		buf.Reset()
		if broken[s.ID] {
			b, err := whole(s.ID)
			if err != nil {
				return nil, nil, err
			}
			buf.Write(AppendEntryHeader(nil, b.Type, int64(len(b.Data))))
			zw.Reset(&buf)
			zw.Write(b.Data)
			if err := zw.Close(); err != nil {
				return nil, nil, err
			}
		} else if err := copyEntry(&buf, src, s, f, moved, off); err != nil {
			return nil, nil, err
		}
		moved[s.Start] = off
		out = append(out, IndexEntry{ID: s.ID, Offset: off, CRC32: crc32.ChecksumIEEE(buf.Bytes())})
		bw.Write(buf.Bytes())
		off += int64(buf.Len())
	}
	if err := bw.Flush(); err != nil {
		return nil, nil, err
	}
	sum := h.Sum(nil)
	if _, err := w.Write(sum); err != nil {
		return nil, nil, err
	}
	return sum, out, nil
}

// copyEntry appends to buf the entry s of src as it will lie at offset at
// of the new pack: its bytes as they are, but an OFS_DELTA's distance to
// its base, which lies where moved says.
func copyEntry(buf *bytes.Buffer, src io.ReaderAt, s Span, f object.Format, moved map[int64]int64, at int64) error {
	raw := make([]byte, s.End-s.Start)
	if _, err := src.ReadAt(raw, s.Start); err != nil {
		return err
	}
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
