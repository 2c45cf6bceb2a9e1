package remote

import (
	"bytes"
	"hash/maphash"

	"github.com/git-durable/git-durable/object"
)

// idSet is the closure's record of ids: for each, a kind, in one flat
// array of slots, each an id's raw bytes and its kind (0 in a free slot),
// open-addressed with linear probing. A map keyed by object.ID spends a
// whole MaxIDSize key and the map's own room on each id: 52–84 bytes per
// id measured for a SHA-1 clone, where a slot here is 21 bytes and the
// array stays between three eighths and three quarters full. The slots are
// found with a hash seeded at random, so that no pack can choose ids that
// collide. It is not safe for concurrent use.
type idSet struct {
	size  int // bytes of an id
	seed  maphash.Seed
	slots []byte // len is a power of two times size+1
	n     int
}

func newIDSet(f object.Format) *idSet {
	return &idSet{size: f.Size(), seed: maphash.MakeSeed()}
}

// width is the bytes of one slot.
func (s *idSet) width() int { return s.size + 1 }

// bytes returns how much memory the set holds.
func (s *idSet) bytes() int64 { return int64(len(s.slots)) }

// find returns the slot of id: the one holding it, or the free one where
// it would go.
func (s *idSet) find(id []byte) (slot []byte, found bool) {
	w := s.width()
	mask := len(s.slots)/w - 1
	for i := int(maphash.Bytes(s.seed, id)) & mask; ; i = (i + 1) & mask {
		slot = s.slots[i*w : (i+1)*w]
		if slot[s.size] == 0 {
			return slot, false
		}
		if bytes.Equal(slot[:s.size], id) {
			return slot, true
		}
	}
}

// get returns the kind recorded for id, 0 when there is none.
func (s *idSet) get(id object.ID) kind {
	if s.n == 0 || id.Size() != s.size {
		return 0
	}
	slot, _ := s.find(id.Bytes())
	return kind(slot[s.size])
}

// set records k, which must not be 0, for id, which must be of the set's
// size, and says whether id was new.
func (s *idSet) set(id object.ID, k kind) (added bool) {
	if 4*(s.n+1) > 3*(len(s.slots)/s.width()) {
		s.grow()
	}
	slot, found := s.find(id.Bytes())
	if !found {
		copy(slot, id.Bytes())
		s.n++
	}
	slot[s.size] = byte(k)
	return !found
}

// grow doubles the slots (at least 1024) and places every id again.
func (s *idSet) grow() {
	w := s.width()
	old := s.slots
	s.slots = make([]byte, max(1024, 2*len(old)/w)*w)
	for i := 0; i < len(old); i += w {
		if old[i+s.size] != 0 {
			slot, _ := s.find(old[i : i+s.size])
			copy(slot, old[i:i+w])
		}
	}
}

// all calls f with the kind of every id, until f returns false.
func (s *idSet) all(f func(kind) bool) {
	for i := s.size; i < len(s.slots); i += s.width() {
		if k := kind(s.slots[i]); k != 0 && !f(k) {
			return
		}
	}
}
