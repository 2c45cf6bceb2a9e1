package pack

import (
	"bytes"
	"io"

	"github.com/git-durable/git-durable/object"
)

// Entry describes one entry of the stream.
type Entry struct {
	Type       object.Type // Commit, Tree, Blob, Tag, OfsDelta or RefDelta
	Size       int64       // inflated size: of the object, or of the delta
	Offset     int64       // offset of the entry header in the stream
	BaseOffset int64       // OfsDelta: offset of the base entry
	BaseID     object.ID   // RefDelta: id of the base object
}

// byteReader is what entry headers are read from.
type byteReader interface {
	io.Reader
	io.ByteReader
}

// readEntryHeader reads the header of the entry at offset off: type, size,
// and the base reference of a delta.
func readEntryHeader(br byteReader, off int64, f object.Format) (Entry, error) {
	e := Entry{Offset: off}
	c, err := br.ReadByte()
	if err != nil {
		return e, err
	}
	e.Type = object.Type(c >> 4 & 7)
	size := int64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if c, err = br.ReadByte(); err != nil {
			return e, err
		}
		if shift > 56 {
			return e, &CorruptError{off, ErrSizeOverflow}
		}
		size |= int64(c&0x7f) << shift
	}
	e.Size = size
	switch e.Type {
	case object.Commit, object.Tree, object.Blob, object.Tag:
	case object.OfsDelta:
		return e, readOfsBase(br, &e)
	case object.RefDelta:
		var b [object.MaxIDSize]byte
		if _, err := io.ReadFull(br, b[:f.Size()]); err != nil {
			return e, err
		}
		e.BaseID, _ = object.IDFromBytes(b[:f.Size()])
	default:
		return e, &TypeError{Offset: off, Type: uint8(e.Type)}
	}
	return e, nil
}

// ParseEntryHeader parses the header of the entry at offset off from b,
// the entry's first bytes (64 hold every header): its type and size, and
// a delta's base. A header b cuts short is io.ErrUnexpectedEOF.
func ParseEntryHeader(b []byte, off int64, f object.Format) (Entry, error) {
	e, err := readEntryHeader(bytes.NewReader(b), off, f)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return e, err
}

// readOfsBase reads the base distance of an OFS_DELTA entry.
func readOfsBase(br byteReader, e *Entry) error {
	c, err := br.ReadByte()
	if err != nil {
		return err
	}
	dist := int64(c & 0x7f)
	for c&0x80 != 0 {
		dist++
		if dist == 0 || dist>>(63-7) != 0 {
			return &CorruptError{e.Offset, ErrOffsetOverflow}
		}
		if c, err = br.ReadByte(); err != nil {
			return err
		}
		dist = dist<<7 + int64(c&0x7f)
	}
	e.BaseOffset = e.Offset - dist
	if e.BaseOffset <= 0 || e.BaseOffset >= e.Offset {
		return &CorruptError{e.Offset, ErrOffsetRange}
	}
	return nil
}

// AppendEntryHeader appends the header of a full entry of type t holding
// size bytes, as a pack writer does.
func AppendEntryHeader(dst []byte, t object.Type, size int64) []byte {
	c := byte(t)<<4 | byte(size&15)
	for size >>= 4; size > 0; size >>= 7 {
		dst = append(dst, c|0x80)
		c = byte(size & 0x7f)
	}
	return append(dst, c)
}

// AppendOfsDistance appends the base distance d of an OFS_DELTA entry, as
// a pack writer does: seven bits a byte, the most significant first, each
// byte but the last with its high bit set and one less than its value.
func AppendOfsDistance(dst []byte, d int64) []byte {
	var buf [10]byte
	i := len(buf) - 1
	buf[i] = byte(d & 0x7f)
	for d >>= 7; d > 0; d >>= 7 {
		d--
		i--
		buf[i] = 0x80 | byte(d&0x7f)
	}
	return append(dst, buf[i:]...)
}
