package unpack

import (
	"unsafe"

	"github.com/git-durable/git-durable/object"
)

// perEntry is what a run holds for each entry of the pack until it ends:
// the entry, its id (of the pack's format), and its slots in the index of
// ids as that grows (the old slots and the new, at once). It is the only
// memory of a run that grows with the pack; the rest (base cache, queued
// jobs, waiting deltas) is bounded.
func perEntry(f object.Format) int64 {
	return int64(unsafe.Sizeof(entry{})) + int64(f.Size()) + slotBytes + slotBytes/2
}

// reserveEvery is how many entries each call of Options.Reserve covers.
const reserveEvery = 1024

// reserved tells Options.Reserve about the memory held for entries, each
// time reserveEvery more were added; u.mu must be held.
func (u *unpacker) reserved() {
	if u.opts.Reserve != nil && u.entries.len()%reserveEvery == 0 {
		u.opts.Reserve(reserveEvery * perEntry(u.fmt))
		u.reservedBytes += reserveEvery * perEntry(u.fmt)
	}
}

// laterRoom is the room a kept pack reserves for the second pass: the data
// of the deltas put off. The bases the workers' walks hold (walkMax each)
// are not added: the walks run once the stream has ended, when the
// reader's queued jobs and parked deltas, which the base limit covers,
// are gone. Reserving them too (issue 18) let the heap of a clone of
// 380,053 objects grow to 118 MiB around a live 80 MiB, 139 MiB of RSS;
// without, the collector runs about twice as often (4% of the CPU instead
// of 2%) and the helper's RSS was 109 MiB.
func (u *unpacker) laterRoom() int64 { return laterMax }

// laterStep is the step in which an exploded pack reserves the data of the
// deltas it put off.
const laterStep = 1 << 20

// reserveLater tells Options.Reserve of what the second pass holds. A kept
// pack reserves all its room as the first delta is put off: its pipeline
// holds the bases of the whole pack in its cache, and with the soft limit
// below what the run really held, the collector ran every few MiB
// allocated, for no less memory. An exploded pack, which holds less and
// must stay within 64 MiB and its largest object, reserves the data its
// deltas put off hold, as it grows. u.mu must be held.
func (u *unpacker) reserveLater() {
	if u.opts.Reserve == nil {
		return
	}
	want := u.later.bytes
	if u.kept != nil {
		want = u.laterRoom()
	}
	for u.laterHeld < want {
		n := int64(laterStep)
		if u.kept != nil {
			n = want
		}
		u.opts.Reserve(n)
		u.reservedBytes += n
		u.laterHeld += n
	}
}

// unreserve gives back what reserved reserved, as the run ends.
func (u *unpacker) unreserve() {
	if u.opts.Reserve != nil && u.reservedBytes > 0 {
		u.opts.Reserve(-u.reservedBytes)
		u.reservedBytes = 0
	}
}
