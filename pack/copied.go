package pack

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/git-durable/git-durable/object"
)

// Copied is an entry of one pack as another takes it, byte for byte: its
// type (RefDelta for a delta, whose base is then named by id), the size
// its data inflates to, a delta's base, and its deflated data.
type Copied struct {
	Type object.Type
	Size int64
	Base object.ID
	Data []byte
}

// ErrCopyCRC is ReadCopy's answer for an entry whose bytes are not what
// its index's CRC says.
var ErrCopyCRC = errors.New("pack: the entry's bytes are not what its CRC says")

// ReadCopy reads the entry of the pack r that starts at off and ends at
// end (where the next begins), its bytes checked against crc, as another
// pack may take it: an OFS_DELTA's base, which idAt names from its
// offset, is named by id.
func ReadCopy(r io.ReaderAt, off, end int64, crc uint32, f object.Format, idAt func(int64) (object.ID, bool)) (Copied, error) {
	if end <= off || end-off > 1<<31 {
		return Copied{}, &CorruptError{off, ErrFrame}
	}
	b := make([]byte, end-off)
	if n, err := r.ReadAt(b, off); n < len(b) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Copied{}, err
	}
	if crc32.ChecksumIEEE(b) != crc {
		return Copied{}, &CorruptError{off, ErrCopyCRC}
	}
	br := bytes.NewReader(b)
	e, err := readEntryHeader(br, off, f)
	if err != nil {
		return Copied{}, err
	}
	c := Copied{Type: e.Type, Size: e.Size, Base: e.BaseID, Data: b[len(b)-br.Len():]}
	if e.Type == object.OfsDelta {
		id, ok := idAt(e.BaseOffset)
		if !ok {
			return Copied{}, &CorruptError{off, fmt.Errorf("pack: no entry at the base offset %d", e.BaseOffset)}
		}
		c.Type, c.Base = object.RefDelta, id
	}
	return c, nil
}
