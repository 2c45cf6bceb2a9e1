package unpack

import (
	"unsafe"

	"github.com/git-durable/git-durable/object"
)

// perEntry is what a run holds for each entry of the pack until it ends:
// the entry and its slot in u.ids, twice over for the room that append and
// map growth leave. It is the only memory of a run that grows with the
// pack; the rest (base cache, queued jobs, waiting deltas) is bounded.
const perEntry = 2 * int64(unsafe.Sizeof(entry{})+unsafe.Sizeof(object.ID{})+unsafe.Sizeof(int32(0)))

// reserveEvery is how many entries each call of Options.Reserve covers.
const reserveEvery = 1024

// reserved tells Options.Reserve about the memory held for entries, each
// time reserveEvery more were added; u.mu must be held.
func (u *unpacker) reserved() {
	if u.opts.Reserve != nil && len(u.entries)%reserveEvery == 0 {
		u.opts.Reserve(reserveEvery * perEntry)
		u.reservedBytes += reserveEvery * perEntry
	}
}

// unreserve gives back what reserved reserved, as the run ends.
func (u *unpacker) unreserve() {
	if u.opts.Reserve != nil && u.reservedBytes > 0 {
		u.opts.Reserve(-u.reservedBytes)
		u.reservedBytes = 0
	}
}
