package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
	"sort"

	"github.com/git-durable/git-durable/object"
)

// ErrIndex means an index file is malformed.
var ErrIndex = errors.New("pack: malformed pack index")

var indexMagic = []byte{0xff, 't', 'O', 'c'}

// Index is a parsed pack index (.idx), version 1 or 2, of either format. It
// keeps the file's bytes and decodes entries on demand.
type Index struct {
	data    []byte
	size    int // id size
	version int
	count   int
	fanout  []byte // 256 big-endian counts
	names   []byte
	crcs    []byte // v2: the CRC-32 of each entry's bytes
	offs    []byte // v2: 32-bit offsets; v1: interleaved offset+name records
	offs64  []byte
}

// ParseIndex parses the bytes of an index file of format f. data is kept,
// not copied.
func ParseIndex(data []byte, f object.Format) (*Index, error) {
	if f == 0 {
		f = object.SHA1
	}
	x := &Index{data: data, size: f.Size(), version: 1}
	body := data
	if bytes.HasPrefix(data, indexMagic) {
		if len(data) < 8 || binary.BigEndian.Uint32(data[4:]) != 2 {
			return nil, ErrIndex
		}
		x.version = 2
		body = data[8:]
	}
	if len(body) < 256*4 {
		return nil, ErrIndex
	}
	x.fanout = body[:256*4]
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		v := binary.BigEndian.Uint32(x.fanout[4*i:])
		if v < prev {
			return nil, ErrIndex
		}
		prev = v
	}
	x.count = int(prev)
	rest := body[256*4:]
	n, sz := x.count, x.size
	if x.version == 1 {
		if len(rest) != n*(4+sz)+2*sz {
			return nil, ErrIndex
		}
		x.offs = rest[:n*(4+sz)]
		return x, nil
	}
	fixed := n*sz + n*4 + n*4
	if len(rest) < fixed+2*sz || (len(rest)-fixed-2*sz)%8 != 0 {
		return nil, ErrIndex
	}
	x.names = rest[:n*sz]
	x.crcs = rest[n*sz : n*sz+n*4]
	x.offs = rest[n*sz+n*4 : fixed]
	x.offs64 = rest[fixed : len(rest)-2*sz]
	return x, nil
}

// Size returns the bytes of the index file, which Index keeps.
func (x *Index) Size() int64 { return int64(len(x.data)) }

// Count returns the number of objects in the pack.
func (x *Index) Count() int { return x.count }

// name returns the raw id of entry i.
func (x *Index) name(i int) []byte {
	if x.version == 1 {
		rec := 4 + x.size
		return x.offs[i*rec+4 : (i+1)*rec]
	}
	return x.names[i*x.size : (i+1)*x.size]
}

// ID returns the id of entry i (entries are sorted by id).
func (x *Index) ID(i int) object.ID {
	id, _ := object.IDFromBytes(x.name(i))
	return id
}

// Offset returns the pack offset of entry i.
func (x *Index) Offset(i int) (int64, error) {
	if x.version == 1 {
		return int64(binary.BigEndian.Uint32(x.offs[i*(4+x.size):])), nil
	}
	v := binary.BigEndian.Uint32(x.offs[4*i:])
	if v&0x80000000 == 0 {
		return int64(v), nil
	}
	j := int(v &^ 0x80000000)
	if 8*j+8 > len(x.offs64) {
		return 0, ErrIndex
	}
	o := binary.BigEndian.Uint64(x.offs64[8*j:])
	if o>>63 != 0 {
		return 0, ErrIndex
	}
	return int64(o), nil
}

// CRC returns the CRC-32 (IEEE) the index records of the bytes of entry
// i in the pack, header included; ok is false for a version 1 index,
// which records none.
func (x *Index) CRC(i int) (crc uint32, ok bool) {
	if x.version == 1 {
		return 0, false
	}
	return binary.BigEndian.Uint32(x.crcs[4*i:]), true
}

// Checksum returns the index's own trailing checksum, and the bytes it
// covers: a reader hashes those and compares.
func (x *Index) Checksum() (sum, covered []byte) {
	end := len(x.data) - x.size
	return x.data[end:], x.data[:end]
}

// Find returns the entry number of id.
func (x *Index) Find(id object.ID) (int, bool) {
	b := id.Bytes()
	if len(b) != x.size {
		return 0, false
	}
	lo := 0
	if b[0] > 0 {
		lo = int(binary.BigEndian.Uint32(x.fanout[4*(int(b[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(x.fanout[4*int(b[0]):]))
	i := lo + sort.Search(hi-lo, func(k int) bool { return bytes.Compare(x.name(lo+k), b) >= 0 })
	if i < hi && bytes.Equal(x.name(i), b) {
		return i, true
	}
	return 0, false
}

// PackChecksum returns the checksum of the pack the index describes.
func (x *Index) PackChecksum() []byte {
	end := len(x.data) - x.size
	return x.data[end-x.size : end]
}
