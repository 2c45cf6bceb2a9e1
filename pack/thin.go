package pack

import (
	"bufio"
	"bytes"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/object"
)

// Base is an object appended to complete a thin pack.
type Base struct {
	ID   object.ID
	Type object.Type
	Data []byte
}

// Complete writes to w the thin pack held in src (size bytes: header,
// entries, trailer) completed with the bases its REF_DELTAs name but do
// not carry, as git index-pack --fix-thin does: the entries unchanged, each
// base appended as a whole object deflated at level, the header's count
// raised and the trailer recomputed. base is asked for each id in order;
// its error is returned as is. Complete returns the new trailer and the
// index entries of the appended objects.
func Complete(w io.Writer, src io.ReaderAt, size int64, f object.Format, ids []object.ID, base func(object.ID) (Base, error), level int) ([]byte, []IndexEntry, error) {
	var head [HeaderSize]byte
	if _, err := src.ReadAt(head[:], 0); err != nil {
		return nil, nil, err
	}
	hdr, err := ParseHeader(head[:])
	if err != nil {
		return nil, nil, err
	}
	hdr.Count += uint32(len(ids))
	h := f.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<20)
	bw.Write(AppendHeader(nil, hdr))
	body := size - HeaderSize - int64(f.Size())
	if _, err := io.Copy(bw, io.NewSectionReader(src, HeaderSize, body)); err != nil {
		return nil, nil, err
	}
	off := HeaderSize + body
	var added []IndexEntry
	var entry bytes.Buffer
	zw, err := zlib.NewWriterLevel(&entry, level)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		b, err := base(id)
		if err != nil {
			return nil, nil, err
		}
		entry.Reset()
		entry.Write(AppendEntryHeader(nil, b.Type, int64(len(b.Data))))
		zw.Reset(&entry)
		zw.Write(b.Data)
		if err := zw.Close(); err != nil {
			return nil, nil, err
		}
		added = append(added, IndexEntry{ID: id, Offset: off, CRC32: crc32.ChecksumIEEE(entry.Bytes())})
		bw.Write(entry.Bytes())
		off += int64(entry.Len())
	}
	if err := bw.Flush(); err != nil {
		return nil, nil, err
	}
	sum := h.Sum(nil)
	if _, err := w.Write(sum); err != nil {
		return nil, nil, err
	}
	return sum, added, nil
}
