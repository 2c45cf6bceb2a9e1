package unpack

import (
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// The resolver owns the table of entries; these are the questions others
// (a kept pack, the checks of a whole pack) may ask of it, each under its
// lock.

// located returns the offset and type of the entry holding id, once that
// entry is resolved.
func (u *resolver) located(id object.ID) (off int64, typ object.Type, ok bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	k, ok := u.entries.find(id)
	if !ok || !u.entries.at(k).done {
		return 0, 0, false
	}
	return u.entries.at(k).off, u.entries.at(k).typ, true
}

// offsetOf returns where entry idx starts in the pack.
func (u *resolver) offsetOf(idx int32) int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.entries.at(idx).off
}

// takeIndexEntries returns every entry as a pack index lists it, and gives
// up the table as it goes: each chunk is let go once copied, so that the
// index entries and the table are never both whole in memory. Afterwards
// the table answers only len; nothing else may be asked of it.
func (u *resolver) takeIndexEntries() []pack.IndexEntry {
	u.mu.Lock()
	defer u.mu.Unlock()
	t := u.entries
	entries := make([]pack.IndexEntry, 0, t.len())
	t.slots, t.used = nil, 0
	for c := range t.chunks {
		for i, e := range t.chunks[c] {
			k := int32(c*chunkEntries + i)
			entries = append(entries, pack.IndexEntry{ID: t.id(k), Offset: e.off, CRC32: e.crc})
		}
		t.chunks[c], t.ids[c] = nil, nil
	}
	t.chunks, t.ids = nil, nil
	return entries
}

// thinBases returns the REF_DELTA bases taken from the store that the pack
// does not hold.
func (u *resolver) thinBases() []object.ID {
	u.mu.Lock()
	defer u.mu.Unlock()
	var thin []object.ID
	for id := range u.external {
		if _, ok := u.entries.find(id); !ok {
			thin = append(thin, id)
		}
	}
	return thin
}
