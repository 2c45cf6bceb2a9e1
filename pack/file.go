package pack

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/object"
)

// MaxDeltaDepth bounds delta chains, as git does.
const MaxDeltaDepth = 10000

// ErrNotFound means an object is not in the pack.
var ErrNotFound = errors.New("pack: object not found")

// File reads objects from a stored pack through its index.
type File struct {
	r      io.ReaderAt
	idx    *Index
	format object.Format
}

// NewFile returns a File over the pack bytes r described by idx.
func NewFile(r io.ReaderAt, idx *Index, f object.Format) *File {
	if f == 0 {
		f = object.SHA1
	}
	return &File{r: r, idx: idx, format: f}
}

// Index returns the pack's index.
func (p *File) Index() *Index { return p.idx }

// Object returns the type and the data of the object id, resolving deltas
// inside the pack.
func (p *File) Object(id object.ID) (object.Type, []byte, error) {
	i, ok := p.idx.Find(id)
	if !ok {
		return object.Bad, nil, ErrNotFound
	}
	off, err := p.idx.Offset(i)
	if err != nil {
		return object.Bad, nil, err
	}
	return p.objectAt(off, 0)
}

func (p *File) objectAt(off int64, depth int) (object.Type, []byte, error) {
	if depth > MaxDeltaDepth {
		return object.Bad, nil, fmt.Errorf("pack: delta chain deeper than %d at offset %d", MaxDeltaDepth, off)
	}
	br := bufio.NewReaderSize(io.NewSectionReader(p.r, off, 1<<62), 4096)
	e, err := readEntryHeader(br, off, p.format)
	if err != nil {
		return object.Bad, nil, err
	}
	data, err := inflateAll(br, e.Size)
	if err != nil {
		return object.Bad, nil, &CorruptError{Offset: off, Err: err}
	}
	var t object.Type
	var base []byte
	switch e.Type {
	case object.OfsDelta:
		t, base, err = p.objectAt(e.BaseOffset, depth+1)
	case object.RefDelta:
		i, ok := p.idx.Find(e.BaseID)
		if !ok {
			return object.Bad, nil, fmt.Errorf("pack: delta base %v not in the pack: %w", e.BaseID, ErrNotFound)
		}
		var boff int64
		if boff, err = p.idx.Offset(i); err == nil {
			t, base, err = p.objectAt(boff, depth+1)
		}
	default:
		return e.Type, data, nil
	}
	if err != nil {
		return object.Bad, nil, err
	}
	data, err = ApplyDelta(nil, base, data)
	return t, data, err
}

// inflateAll inflates exactly size bytes, growing the buffer only as data
// arrives so that a lying size costs nothing.
func inflateAll(br *bufio.Reader, size int64) ([]byte, error) {
	zr, err := zlib.NewReader(br)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	buf := make([]byte, 0, min(size, 64<<10)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := zr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > size {
			return nil, &InflateError{Code: -5}
		}
		if err == io.EOF {
			if int64(len(buf)) != size {
				return nil, &InflateError{Code: 1}
			}
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
