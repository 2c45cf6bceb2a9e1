package pack

import (
	"bufio"
	"bytes"
	"hash"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/object"
)

// appender writes a pack's whole objects, each deflated, after what the
// pack holds already, then its trailer: the part WriteWhole and Complete
// share.
type appender struct {
	w     io.Writer     // where the pack goes: the trailer is written there
	sum   func() []byte // the trailer: the sum of everything before it
	bw    *bufio.Writer
	off   int64 // where the next entry starts
	zw    *zlib.Writer
	entry bytes.Buffer
	added []IndexEntry
}

// newAppender returns an appender writing to w, summing into h, the
// objects deflated at level.
func newAppender(w io.Writer, h hash.Hash, level int) (*appender, error) {
	return newSummed(io.MultiWriter(w, h), w, func() []byte { return h.Sum(nil) }, level)
}

// newSummed returns an appender writing to w, the objects deflated at
// level, whose trailer, written to tail, sum gives once everything before
// it went to w.
func newSummed(w, tail io.Writer, sum func() []byte, level int) (*appender, error) {
	a := &appender{w: tail, sum: sum, bw: bufio.NewWriterSize(w, 1<<20)}
	zw, err := zlib.NewWriterLevel(&a.entry, level)
	if err != nil {
		return nil, err
	}
	a.zw = zw
	return a, nil
}

// add writes b as a whole object at the current offset.
func (a *appender) add(b Base) error {
	a.entry.Reset()
	a.entry.Write(AppendEntryHeader(nil, b.Type, int64(len(b.Data))))
	a.zw.Reset(&a.entry)
	a.zw.Write(b.Data)
	if err := a.zw.Close(); err != nil {
		return err
	}
	a.added = append(a.added, IndexEntry{ID: b.ID, Offset: a.off, CRC32: crc32.ChecksumIEEE(a.entry.Bytes())})
	a.bw.Write(a.entry.Bytes())
	a.off += int64(a.entry.Len())
	return nil
}

// raw writes the entry of id whose bytes are head and then rest, as they
// are, at the current offset.
func (a *appender) raw(id object.ID, head, rest []byte) {
	crc := crc32.Update(crc32.ChecksumIEEE(head), crc32.IEEETable, rest)
	a.added = append(a.added, IndexEntry{ID: id, Offset: a.off, CRC32: crc})
	a.bw.Write(head)
	a.bw.Write(rest)
	a.off += int64(len(head) + len(rest))
}

// finish writes the trailer, and returns it with the index entries of the
// objects added.
func (a *appender) finish() ([]byte, []IndexEntry, error) {
	if err := a.bw.Flush(); err != nil {
		return nil, nil, err
	}
	sum := a.sum()
	if _, err := a.w.Write(sum); err != nil {
		return nil, nil, err
	}
	return sum, a.added, nil
}
