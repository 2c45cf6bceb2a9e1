package pack

import (
	"bufio"
	"bytes"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/object"
)

// WriteWhole writes to w a pack of n whole objects, the i-th as next(i)
// gives it, each deflated at level: no delta, every object standing alone
// (what a repair writes of the objects it fetched again). It returns the
// trailer and the index entries.
func WriteWhole(w io.Writer, f object.Format, n int, next func(i int) (Base, error), level int) ([]byte, []IndexEntry, error) {
	h := f.NewChecksum()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<20)
	bw.Write(AppendHeader(nil, Header{Version: 2, Count: uint32(n)}))
	off := int64(HeaderSize)
	entries := make([]IndexEntry, 0, n)
	var buf bytes.Buffer
	zw, err := zlib.NewWriterLevel(&buf, level)
	if err != nil {
		return nil, nil, err
	}
	for i := range n {
		b, err := next(i)
		if err != nil {
			return nil, nil, err
		}
		buf.Reset()
		buf.Write(AppendEntryHeader(nil, b.Type, int64(len(b.Data))))
		zw.Reset(&buf)
		zw.Write(b.Data)
		if err := zw.Close(); err != nil {
			return nil, nil, err
		}
		entries = append(entries, IndexEntry{ID: b.ID, Offset: off, CRC32: crc32.ChecksumIEEE(buf.Bytes())})
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
	return sum, entries, nil
}
