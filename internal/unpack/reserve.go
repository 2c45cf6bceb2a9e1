package unpack

import "unsafe"

// perEntry is what a run holds for each entry of the pack until it ends:
// the entry, and its slots in the index of ids as that grows (the old
// slots and the new, at once). It is the only memory of a run that grows
// with the pack; the rest (base cache, queued jobs, waiting deltas) is
// bounded.
const perEntry = int64(unsafe.Sizeof(entry{})) + slotBytes + slotBytes/2

// reserveEvery is how many entries each call of Options.Reserve covers.
const reserveEvery = 1024

// reserved tells Options.Reserve about the memory held for entries, each
// time reserveEvery more were added; u.mu must be held.
func (u *unpacker) reserved() {
	if u.opts.Reserve != nil && u.entries.len()%reserveEvery == 0 {
		u.opts.Reserve(reserveEvery * perEntry)
		u.reservedBytes += reserveEvery * perEntry
	}
}

// reserveLater tells Options.Reserve of the room the second pass of a
// kept pack may take: the deltas put off, and the bases each worker's walk
// holds. Without it, the garbage collector would run all the more often as
// they fill it, for no less memory.
func (u *unpacker) reserveLater() {
	if u.opts.Reserve != nil {
		n := laterMax + int64(u.opts.Workers)*walkMax
		u.opts.Reserve(n)
		u.reservedBytes += n
	}
}

// unreserve gives back what reserved reserved, as the run ends.
func (u *unpacker) unreserve() {
	if u.opts.Reserve != nil && u.reservedBytes > 0 {
		u.opts.Reserve(-u.reservedBytes)
		u.reservedBytes = 0
	}
}
