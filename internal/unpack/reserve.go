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

// reserved tells Options.Reserve about the memory held for entries, and
// Options.ReserveRoom of the run's room, each time reserveEvery more
// were added; u.mu must be held.
func (u *resolver) reserved() {
	if u.entries.len()%reserveEvery != 0 {
		return
	}
	if u.opts.Reserve != nil {
		u.opts.Reserve(reserveEvery * perEntry(u.fmt))
		u.reservedBytes += reserveEvery * perEntry(u.fmt)
	}
	u.reserveRoom()
}

// laterStep is the step in which an exploded pack reserves the data of the
// deltas it put off.
const laterStep = 1 << 20

// reserveLater tells Options.Reserve of what the second pass holds. A kept
// pack reserves all its room, laterMax, as the first delta is put off: its
// pipeline holds the bases of the whole pack in its cache, and with the
// soft limit below what the run really held, the collector ran every few
// MiB allocated, for no less memory. The bases the workers' walks hold
// (walkMax each) are not added: the walks run once the stream has ended,
// when the reader's queued jobs and parked deltas, which the base limit
// covers, are gone. Reserving them too (issue 18) let the heap of a clone
// of 380,053 objects grow to 118 MiB around a live 80 MiB, 139 MiB of
// RSS; without, the helper's was 109 MiB. An exploded pack, which holds
// less and must stay within 64 MiB and its largest object beside what
// grows with its entries, reserves the data its deltas put off hold, as
// it grows. u.mu must be held.
func (u *resolver) reserveLater() {
	if u.opts.Reserve == nil {
		return
	}
	atOnce := u.dest.memory().laterAtOnce
	want := u.later.bytes
	if atOnce {
		want = laterMax
	}
	for u.laterHeld < want {
		n := int64(laterStep)
		if atOnce {
			n = want
		}
		u.opts.Reserve(n)
		u.reservedBytes += n
		u.laterHeld += n
	}
}

// maxRoom is the most room a run asks for above what it holds: it holds
// the bases of its cache, its table and its put-off deltas, and allocates
// every object it resolves; with the soft limit a few MiB above that, the
// collector ran, and the runtime gave pages back and took them again, for
// a tenth of a kept pack's time (git.git to v2.0.0 after git gc
// --aggressive, --keep: 3.88 s; 3.61 s with 16 MiB more, 3.49 s with 25)
// and a fifth of an exploded one's (git.git to v2.0.0 on tmpfs, 3 rounds:
// 19.0–26.5 s and 736–769 collections; 16.0–21.0 s and 166–176 with 16
// MiB of room; 15.6–17.4 s and 132–139 with 32). It is asked for with the
// entries, roomPerEntry each, so that a pack of few entries, which
// allocates little, stays within the 64 MiB that bounds it.
const (
	maxRoom      = 32 << 20
	roomPerEntry = 256
)

// reserveRoom asks Options.ReserveRoom for the run's room for reserveEvery
// more entries, kept or exploded; u.mu must be held.
func (u *resolver) reserveRoom() {
	if u.opts.ReserveRoom != nil && u.roomBytes < maxRoom {
		n := min(int64(reserveEvery*roomPerEntry), maxRoom-u.roomBytes)
		u.opts.ReserveRoom(n)
		u.roomBytes += n
	}
}

// unreserve gives back what reserved and reserveRoom reserved, as the run
// ends.
func (u *resolver) unreserve() {
	if u.opts.Reserve != nil && u.reservedBytes > 0 {
		u.opts.Reserve(-u.reservedBytes)
		u.reservedBytes = 0
	}
	if u.roomBytes > 0 {
		u.opts.ReserveRoom(-u.roomBytes)
		u.roomBytes = 0
	}
}
