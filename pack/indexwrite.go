package pack

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"sort"

	"github.com/git-durable/git-durable/object"
)

// IndexEntry is one object of a pack as its index records it.
type IndexEntry struct {
	ID     object.ID
	Offset int64
	CRC32  uint32
}

// SortIndexEntries sorts entries by id, the order of an index.
func SortIndexEntries(entries []IndexEntry) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID.Compare(entries[j].ID) < 0 })
}

// maxOffset32 is the largest offset an index stores in its 32-bit table.
const maxOffset32 = 0x7fffffff

// WriteIndex writes a version 2 index of the pack whose trailer is packSum:
// fan-out, sorted ids, CRC-32s, offsets (those above 2 GiB in the 64-bit
// table), the pack's checksum and the index's own. entries must be sorted
// by id (SortIndexEntries). It returns the index checksum.
func WriteIndex(w io.Writer, entries []IndexEntry, packSum []byte, f object.Format) ([]byte, error) {
	if f == 0 {
		f = object.SHA1
	}
	// A checksum of what this process writes, naming nothing: plain SHA-1.
	h := f.NewChecksum()
	bw := bufio.NewWriter(io.MultiWriter(w, h))
	var b [8]byte
	put32 := func(v uint32) {
		binary.BigEndian.PutUint32(b[:4], v)
		bw.Write(b[:4])
	}
	bw.Write(indexMagic)
	put32(2)
	var fan [256]uint32
	for i, e := range entries {
		if e.ID.Size() != f.Size() {
			return nil, errors.New("pack: index entry id of the wrong format")
		}
		if i > 0 && entries[i-1].ID.Compare(e.ID) > 0 {
			return nil, errors.New("pack: index entries not sorted")
		}
		fan[e.ID.Bytes()[0]]++
	}
	total := uint32(0)
	for _, n := range fan {
		total += n
		put32(total)
	}
	for i := range entries {
		bw.Write(entries[i].ID.Bytes())
	}
	for _, e := range entries {
		put32(e.CRC32)
	}
	var large []int64
	for _, e := range entries {
		if e.Offset > maxOffset32 {
			put32(0x80000000 | uint32(len(large)))
			large = append(large, e.Offset)
		} else {
			put32(uint32(e.Offset))
		}
	}
	for _, o := range large {
		binary.BigEndian.PutUint64(b[:], uint64(o))
		bw.Write(b[:])
	}
	bw.Write(packSum)
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	sum := h.Sum(nil)
	_, err := w.Write(sum)
	return sum, err
}

// WriteReverseIndex writes a .rev file (RIDX version 1): for every object in
// pack order, its position in the index. entries must be in index order.
func WriteReverseIndex(w io.Writer, entries []IndexEntry, packSum []byte, f object.Format) error {
	pos := make([]uint32, len(entries))
	for i := range pos {
		pos[i] = uint32(i)
	}
	sort.Slice(pos, func(a, b int) bool { return entries[pos[a]].Offset < entries[pos[b]].Offset })
	return WriteReverseIndexOf(w, pos, packSum, f)
}

// WriteReverseIndexOf writes a .rev file (RIDX version 1) that lists pos:
// for every object in pack order, its position in the index.
func WriteReverseIndexOf(w io.Writer, pos []uint32, packSum []byte, f object.Format) error {
	if f == 0 {
		f = object.SHA1
	}
	h := f.NewChecksum()
	bw := bufio.NewWriter(io.MultiWriter(w, h))
	var b [4]byte
	put32 := func(v uint32) {
		binary.BigEndian.PutUint32(b[:], v)
		bw.Write(b[:])
	}
	bw.WriteString("RIDX")
	put32(1)
	put32(uint32(f))
	for _, p := range pos {
		put32(p)
	}
	bw.Write(packSum)
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(h.Sum(nil))
	return err
}
