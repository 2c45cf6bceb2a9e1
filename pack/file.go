package pack

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/internal/inflate"
	"github.com/git-durable/git-durable/object"
)

// MaxDeltaDepth bounds delta chains, as git does.
const MaxDeltaDepth = 10000

// ErrNotFound means an object is not in the pack.
var ErrNotFound = errors.New("pack: object not found")

// Locator finds where an object starts in a pack. Index is one; a pack
// being received has another.
type Locator interface {
	FindOffset(id object.ID) (int64, bool)
}

// FindOffset implements Locator.
func (x *Index) FindOffset(id object.ID) (int64, bool) {
	i, ok := x.Find(id)
	if !ok {
		return 0, false
	}
	off, err := x.Offset(i)
	return off, err == nil
}

// File reads objects from a pack at random.
type File struct {
	r      io.ReaderAt
	loc    Locator
	format object.Format
	// External, when set, provides REF_DELTA bases that are not in the
	// pack (the bases of a thin pack).
	External func(object.ID) (object.Type, []byte, error)
	// Cache, when set, keeps the objects resolved on the way down delta
	// chains. The data Object and ObjectAt return may then be shared
	// with later calls: it must not be modified.
	Cache *BaseCache
	// Counts, when set, tallies the entries inflated and the deltas
	// applied.
	Counts *Counts
}

// Counts tallies the work of reading a pack: the entries inflated, the
// bytes they inflated to and the deltas applied. It is safe for any number
// of goroutines; a nil Counts counts nothing.
type Counts struct {
	inflated, bytes, applied atomic.Int64
}

// Inflated records an entry inflated to n bytes.
func (c *Counts) Inflated(n int) {
	if c != nil {
		c.inflated.Add(1)
		c.bytes.Add(int64(n))
	}
}

// Applied records a delta applied.
func (c *Counts) Applied() {
	if c != nil {
		c.applied.Add(1)
	}
}

// Totals returns the entries inflated, the bytes they inflated to and the
// deltas applied so far.
func (c *Counts) Totals() (inflated, bytes, applied int64) {
	if c == nil {
		return 0, 0, 0
	}
	return c.inflated.Load(), c.bytes.Load(), c.applied.Load()
}

// NewFile returns a File over the pack bytes r whose objects loc finds.
func NewFile(r io.ReaderAt, loc Locator, f object.Format) *File {
	if f == 0 {
		f = object.SHA1
	}
	return &File{r: r, loc: loc, format: f}
}

// Object returns the type and the data of the object id, resolving deltas.
func (p *File) Object(id object.ID) (object.Type, []byte, error) {
	off, ok := p.loc.FindOffset(id)
	if !ok {
		return object.Bad, nil, ErrNotFound
	}
	return p.objectAt(off, 0)
}

// Has reports whether the pack holds an entry of id.
func (p *File) Has(id object.ID) bool {
	_, ok := p.loc.FindOffset(id)
	return ok
}

// ObjectAt returns the type and data of the object whose entry starts at
// offset off, resolving deltas.
func (p *File) ObjectAt(off int64) (object.Type, []byte, error) { return p.objectAt(off, 0) }

func (p *File) objectAt(off int64, depth int) (object.Type, []byte, error) {
	if depth > MaxDeltaDepth {
		return object.Bad, nil, fmt.Errorf("pack: delta chain deeper than %d at offset %d", MaxDeltaDepth, off)
	}
	if t, data, ok := p.Cache.get(p, off); ok {
		return t, data, nil
	}
	// The base first, the delta once the base is in hand: a walk down a
	// long chain holds no delta of it on the way.
	e, err := p.headerAt(off)
	if err != nil {
		return object.Bad, nil, err
	}
	if e.Type != object.OfsDelta && e.Type != object.RefDelta {
		_, data, err := p.EntryAt(off)
		if err != nil {
			return object.Bad, nil, err
		}
		p.Cache.put(p, off, e.Type, data)
		return e.Type, data, nil
	}
	var t object.Type
	var base []byte
	switch e.Type {
	case object.OfsDelta:
		t, base, err = p.objectAt(e.BaseOffset, depth+1)
	case object.RefDelta:
		if boff, ok := p.loc.FindOffset(e.BaseID); ok {
			t, base, err = p.objectAt(boff, depth+1)
		} else if p.External != nil {
			t, base, err = p.External(e.BaseID)
		} else {
			return object.Bad, nil, fmt.Errorf("pack: delta base %v not in the pack: %w", e.BaseID, ErrNotFound)
		}
	}
	if err != nil {
		return object.Bad, nil, err
	}
	_, data, err := p.EntryAt(off)
	if err != nil {
		return object.Bad, nil, err
	}
	if data, err = ApplyDelta(nil, base, data); err != nil {
		return object.Bad, nil, err
	}
	p.Counts.Applied()
	p.Cache.put(p, off, t, data)
	return t, data, nil
}

// Depth returns how many deltas lie between the entry at offset off and
// the whole object at the end of its chain, as ObjectAt follows it (an
// error where it cannot: a header that does not read, a base not in the
// pack, a chain deeper than MaxDeltaDepth). Only headers are read.
func (p *File) Depth(off int64) (int, error) {
	for depth := 0; depth <= MaxDeltaDepth; depth++ {
		e, err := p.headerAt(off)
		if err != nil {
			return 0, err
		}
		switch e.Type {
		case object.OfsDelta:
			off = e.BaseOffset
		case object.RefDelta:
			base, ok := p.loc.FindOffset(e.BaseID)
			if !ok {
				return 0, fmt.Errorf("pack: delta base %v not in the pack: %w", e.BaseID, ErrNotFound)
			}
			off = base
		default:
			return depth, nil
		}
	}
	return 0, fmt.Errorf("pack: delta chain deeper than %d at offset %d", MaxDeltaDepth, off)
}

// HeaderAt returns the header of the entry at offset off: its type and
// size, and a delta's base, without inflating it.
func (p *File) HeaderAt(off int64) (Entry, error) { return p.headerAt(off) }

// headerAt returns the header of the entry at offset off.
func (p *File) headerAt(off int64) (Entry, error) {
	// Type and size, and an offset or an id: 64 bytes hold them all.
	br := bufio.NewReaderSize(io.NewSectionReader(p.r, off, 64), 64)
	e, err := readEntryHeader(br, off, p.format)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return e, err
}

// EntryAt returns the header and the inflated data of the entry at offset
// off as they are in the pack: for a delta, the delta itself, unresolved.
func (p *File) EntryAt(off int64) (Entry, []byte, error) {
	br, _ := entryReaders.Get().(*bufio.Reader)
	if br == nil {
		br = bufio.NewReaderSize(nil, 4096)
	}
	defer entryReaders.Put(br)
	sr := io.NewSectionReader(p.r, off, 1<<62)
	br.Reset(sr)
	e, err := readEntryHeader(br, off, p.format)
	if err != nil {
		return e, nil, err
	}
	data, err := inflateBuffered(br, e.Size)
	if errors.Is(err, inflate.ErrShort) {
		read, _ := sr.Seek(0, io.SeekCurrent)
		data, err = inflateAt(p.r, off+read-int64(br.Buffered()), e.Size)
	}
	if err != nil {
		if data, err = inflateAll(br, e.Size); err != nil {
			return e, nil, &CorruptError{Offset: off, Err: err}
		}
	}
	p.Counts.Inflated(len(data))
	return e, data, nil
}

// entryReaders keeps the buffered readers of EntryAt for reuse: a pack
// read back entry by entry would allocate 4 KiB for each.
var entryReaders sync.Pool

// inflaters keeps zlib readers for reuse: a new one allocates its
// decoder's tables, tens of KiB, for each entry read.
var inflaters sync.Pool

// newInflater returns a zlib reader of r, reused if one is free.
func newInflater(r io.Reader) (io.ReadCloser, error) {
	if zr, ok := inflaters.Get().(io.ReadCloser); ok {
		return zr, zr.(zlib.Resetter).Reset(r, nil)
	}
	return zlib.NewReader(r)
}

// decoders keeps the whole-entry decompressors of inflateBuffered.
var decoders = sync.Pool{New: func() any { return new(inflate.Decoder) }}

// inflateBuffered inflates an entry of size bytes whose compressed bytes
// are all in br's buffer already (most entries: the reader holds 4 KiB),
// in one call, and says inflate.ErrShort where they may run past it.
// Whatever fails here goes to inflateAll, which reads on from the same
// byte and says what is wrong. The size it allocates is bounded by the
// buffer's.
func inflateBuffered(br *bufio.Reader, size int64) ([]byte, error) {
	window, ok := bufferedWindow(br, size)
	if !ok {
		return nil, inflate.ErrShort
	}
	return inflateWhole(window, size)
}

// bufferedWindow returns what br holds already, without waiting for more,
// where an entry of size bytes may fit in it: a compressed entry is rarely
// more than eight times smaller than itself, and a size in a header is not
// trusted with more memory than that before its data is seen.
func bufferedWindow(br *bufio.Reader, size int64) ([]byte, bool) {
	buffered := br.Buffered()
	if size > 8*int64(buffered) {
		return nil, false
	}
	window, _ := br.Peek(buffered)
	return window, true
}

// wholeMax is the largest entry inflateAt reads whole: a size in a header
// is not trusted with more memory than that before its data is seen.
const wholeMax = 16 << 20

// inflateAt inflates an entry of size bytes whose compressed bytes start at
// off in r: it reads them whole — the size and an eighth, more than any
// encoder's stream of that size takes — and decodes them in one call.
func inflateAt(r io.ReaderAt, off, size int64) ([]byte, error) {
	if size > wholeMax {
		return nil, inflate.ErrShort
	}
	window := make([]byte, size+size/8+64)
	n, err := r.ReadAt(window, off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return inflateWhole(window[:n], size)
}

// inflateWhole inflates the zlib stream at the start of src to size bytes.
func inflateWhole(src []byte, size int64) ([]byte, error) {
	data := make([]byte, size)
	d := decoders.Get().(*inflate.Decoder)
	defer decoders.Put(d)
	if _, err := d.Zlib(data, src); err != nil {
		return nil, err
	}
	return data, nil
}

// inflateAll inflates exactly size bytes, growing the buffer only as data
// arrives so that a lying size costs nothing.
func inflateAll(br *bufio.Reader, size int64) ([]byte, error) {
	zr, err := newInflater(br)
	if err != nil {
		return nil, err
	}
	defer inflaters.Put(zr)
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
