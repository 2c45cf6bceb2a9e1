package unpack

import (
	"fmt"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// parkMax bounds the delta data held in memory by deltas that wait for
// their base (u.waiting, u.awaiting). A REF_DELTA whose base never comes (a
// hostile or broken thin pack) or comes last would otherwise hold its data
// until the end: memory would grow with the pack. Past the bound, a
// waiting delta drops its data and reads it back when its base is done:
// from the kept pack, or from the spill file of an exploded one. Normal
// packs stay under it: there a delta waits only for a base a worker is
// resolving.
const parkMax = 8 << 20

// UnresolvedError is how a kept pack fails when deltas never got their
// base: git index-pack's "pack has N unresolved deltas". It matches
// ErrUnresolved.
type UnresolvedError struct{ Count int }

func (e *UnresolvedError) Error() string {
	if e.Count == 1 {
		return "pack has 1 unresolved delta"
	}
	return fmt.Sprintf("pack has %d unresolved deltas", e.Count)
}

// Is makes errors.Is(err, ErrUnresolved) hold.
func (e *UnresolvedError) Is(target error) bool { return target == ErrUnresolved }

// park is called, with u.mu held, as j starts to wait for its base. Within
// parkMax it keeps its data; past it, the data is dropped, once written
// to the spill file when the pack is not kept. If that write fails, the
// data is held, as git holds it.
func (u *resolver) park(j *job) {
	n := int64(len(j.data))
	if u.aside == nil || u.parked+n <= parkMax {
		u.parked += n
		return
	}
	off, err := u.aside.put(j.data)
	if err != nil {
		u.parked += n
		return
	}
	j.data, j.spilled, j.spillAt = nil, true, off
}

// unpark is called, with u.mu held, as j stops waiting.
func (u *resolver) unpark(j *job) {
	u.unwait(j)
	if !j.spilled {
		u.parked -= int64(len(j.data))
	}
}

// reload reads back the data a waiting delta dropped.
func (u *resolver) reload(j *job) error {
	data, err := u.aside.reread(j)
	if err != nil {
		return err
	}
	j.data, j.spilled = data, false
	return nil
}

// unresolved counts the deltas that never got their base: those waiting
// for an id, for an entry (itself unresolved), or for an offset where no
// entry starts.
func (u *resolver) unresolved() int {
	n := u.orphans
	for k := range int32(u.entries.len()) {
		if u.entries.at(k).later {
			n++
		}
	}
	for _, js := range u.waiting {
		n += len(js)
	}
	for _, js := range u.awaiting {
		n += len(js)
	}
	return n
}

// unresolvedErr is the error for n unresolved deltas: git index-pack's
// when the pack is kept, git unpack-objects' otherwise.
func (u *resolver) unresolvedErr(n int) error {
	if u.opts.Keep != nil {
		return &UnresolvedError{Count: n}
	}
	return ErrUnresolved
}

// put sets nothing aside: the kept pack holds every entry (aside).
func (d *packDest) put([]byte) (int64, error) { return -1, nil }

// release: the kept pack is published or discarded on its own (aside).
func (d *packDest) release() {}

// reread reads back the delta of job j from the kept pack (aside).
func (d *packDest) reread(j *job) ([]byte, error) {
	idx := j.idx
	off := d.entries.offsetOf(idx)
	e, data, err := d.rd.EntryAt(off)
	if err != nil {
		return nil, err
	}
	if e.Type != object.OfsDelta && e.Type != object.RefDelta {
		return nil, &pack.CorruptError{Offset: off, Err: fmt.Errorf("kept pack: entry %d is no longer a delta", idx)}
	}
	return data, nil
}
