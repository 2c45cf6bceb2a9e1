// Package packtest builds pack streams by hand for tests: valid ones, and
// ones broken in exactly the way a test needs.
package packtest

import (
	"bytes"
	"encoding/binary"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// Builder accumulates pack entries. Its zero value builds a SHA-1 pack.
type Builder struct {
	Format  object.Format
	Version uint32 // 0 means 2
	Count   int    // when non-zero, written as the header count instead of the real one
	body    bytes.Buffer
	offsets []int64
	entries int
}

// Object appends a full object and returns its entry index.
func (b *Builder) Object(t object.Type, data []byte) int {
	return b.Raw(t, int64(len(data)), nil, Deflate(data))
}

// OfsDelta appends a delta against the entry with index base.
func (b *Builder) OfsDelta(base int, delta []byte) int {
	dist := b.offset() - b.offsets[base]
	return b.Raw(object.OfsDelta, int64(len(delta)), OfsDistance(dist), Deflate(delta))
}

// RefDelta appends a delta against the object with id base.
func (b *Builder) RefDelta(base object.ID, delta []byte) int {
	return b.Raw(object.RefDelta, int64(len(delta)), base.Bytes(), Deflate(delta))
}

// Raw appends an entry with the given header fields, extra header bytes (base
// distance or id) and already compressed data.
func (b *Builder) Raw(t object.Type, size int64, extra, zdata []byte) int {
	b.offsets = append(b.offsets, b.offset())
	b.body.Write(EntryHeader(t, size))
	b.body.Write(extra)
	b.body.Write(zdata)
	b.entries++
	return b.entries - 1
}

// Bytes appends raw bytes to the body (not an entry).
func (b *Builder) Bytes(p []byte) { b.body.Write(p) }

// Offset returns the stream offset of entry i.
func (b *Builder) Offset(i int) int64 { return b.offsets[i] }

func (b *Builder) offset() int64 { return 12 + int64(b.body.Len()) }

// Pack returns the whole stream: header, entries, trailer.
func (b *Builder) Pack() []byte {
	f := b.Format
	if f == 0 {
		f = object.SHA1
	}
	v, n := b.Version, b.Count
	if v == 0 {
		v = 2
	}
	if n == 0 {
		n = b.entries
	}
	var out bytes.Buffer
	out.WriteString("PACK")
	binary.Write(&out, binary.BigEndian, v)
	binary.Write(&out, binary.BigEndian, uint32(n))
	out.Write(b.body.Bytes())
	h := f.New()
	h.Write(out.Bytes())
	return h.Sum(out.Bytes())
}

// EntryHeader encodes an entry's type and size.
func EntryHeader(t object.Type, size int64) []byte { return pack.AppendEntryHeader(nil, t, size) }

// OfsDistance encodes an OFS_DELTA base distance.
func OfsDistance(d int64) []byte { return pack.AppendOfsDistance(nil, d) }

// Deflate compresses data with zlib.
func Deflate(data []byte) []byte {
	var buf bytes.Buffer
	w, _ := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	w.Write(data)
	w.Close()
	return buf.Bytes()
}
