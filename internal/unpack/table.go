package unpack

import (
	"bytes"
	"hash/maphash"
	"sort"

	"github.com/git-durable/git-durable/object"
)

// table is the record of every entry of the pack, the only memory of a run
// that grows with the pack: the entries in chunks that never move (a
// slice would copy itself, and leave its old array, as it grows), their
// ids beside them in chunks of raw bytes of the pack's format (an
// object.ID in each entry would spend MaxIDSize and a length on each),
// and an index from object id to the first entry of that id,
// open-addressed over entry numbers (a map would hold a copy of every
// id). The index hashes with a seed of its own, so that no pack can
// choose ids that collide. It is not safe for concurrent use; the
// resolver holds u.mu.
type table struct {
	chunks [][]entry
	ids    [][]byte // chunkEntries ids of idSize bytes each, a chunk's
	idSize int
	n      int
	seed   maphash.Seed
	slots  []int32 // entry number + 1; 0 is free
	used   int
}

// chunkEntries is the size of a chunk, in entries (224 KiB).
const chunkEntries = 4096

// slotBytes is what the index costs per entry at most: a slot, at a load
// of a quarter just after it grew.
const slotBytes = 4 * 4

func newTable(f object.Format) *table { return &table{idSize: f.Size(), seed: maphash.MakeSeed()} }

// add appends an entry that starts at off and returns its number.
func (t *table) add(off int64) int32 {
	if t.n%chunkEntries == 0 {
		t.chunks = append(t.chunks, make([]entry, 0, chunkEntries))
		t.ids = append(t.ids, make([]byte, chunkEntries*t.idSize))
	}
	c := &t.chunks[len(t.chunks)-1]
	*c = append(*c, entry{off: off, base: fullObject})
	t.n++
	return int32(t.n - 1)
}

// at returns entry k.
func (t *table) at(k int32) *entry { return &t.chunks[k/chunkEntries][k%chunkEntries] }

// rawID returns the bytes of entry k's id, zeros until setID.
func (t *table) rawID(k int32) []byte {
	i := int(k%chunkEntries) * t.idSize
	return t.ids[k/chunkEntries][i : i+t.idSize]
}

// id returns entry k's id, once setID gave it one.
func (t *table) id(k int32) object.ID {
	id, _ := object.IDFromBytes(t.rawID(k)) // of the table's size: never an error
	return id
}

// setID gives entry k its id, of the table's format.
func (t *table) setID(k int32, id object.ID) { copy(t.rawID(k), id.Bytes()) }

// len returns the number of entries.
func (t *table) len() int { return t.n }

// atOffset returns the entry that starts at off.
func (t *table) atOffset(off int64) (int32, bool) {
	k := int32(sort.Search(t.n, func(i int) bool { return t.at(int32(i)).off >= off }))
	return k, int(k) < t.n && t.at(k).off == off
}

// find returns the first entry whose id is id, among those indexed.
func (t *table) find(id object.ID) (int32, bool) {
	if id.Size() != t.idSize {
		return 0, false
	}
	return t.findRaw(id.Bytes())
}

// findRaw is find for the raw bytes b of an id of the table's format.
func (t *table) findRaw(b []byte) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for i := t.hash(b) & mask; t.slots[i] != 0; i = (i + 1) & mask {
		if k := t.slots[i] - 1; bytes.Equal(t.rawID(k), b) {
			return k, true
		}
	}
	return 0, false
}

// index makes entry k, whose id is set, the one find returns for its id,
// unless an entry of that id is indexed already; it says whether one was.
func (t *table) index(k int32) (dup bool) {
	if _, ok := t.findRaw(t.rawID(k)); ok {
		return true
	}
	if 2*(t.used+1) > len(t.slots) {
		t.grow()
	}
	t.put(k)
	return false
}

// put places entry k in a free slot.
func (t *table) put(k int32) {
	mask := len(t.slots) - 1
	i := t.hash(t.rawID(k)) & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = k + 1
	t.used++
}

// grow doubles the index (at least 1024 slots) and places every entry
// again.
func (t *table) grow() {
	old := t.slots
	t.slots, t.used = make([]int32, max(1024, 2*len(old))), 0
	for _, s := range old {
		if s != 0 {
			t.put(s - 1)
		}
	}
}

func (t *table) hash(id []byte) int {
	return int(maphash.Bytes(t.seed, id))
}
