package unpack

import (
	"errors"

	"github.com/git-durable/git-durable/object"
)

// settle hashes a complete object, writes it (or holds it back under
// --strict), marks its entry done and returns the deltas that waited for
// it, with their base in hand.
func (u *resolver) settle(h *object.Hasher, idx int32, typ object.Type, data []byte) []waiter {
	h.Begin(typ, int64(len(data)))
	h.Write(data)
	id, err := h.Sum()
	if errors.Is(err, object.ErrCollision) {
		u.fail(&CollisionError{ID: id})
		return nil
	}
	u.mu.Lock()
	u.entries.setID(idx, id)
	dup := u.entries.index(idx)
	u.mu.Unlock()
	if err := u.record(id, typ, data, dup); err != nil {
		u.fail(err)
		return nil
	}
	if u.opts.Object != nil {
		u.opts.Object(id, typ, data)
	}
	u.done(idx, id, typ)
	u.cache.Put(id, typ, data)
	return withBase(u.takeWaiting(idx, id), typ, data)
}

func withBase(jobs []*job, typ object.Type, base []byte) []waiter {
	out := make([]waiter, len(jobs))
	for i, j := range jobs {
		out[i] = waiter{j, typ, base}
	}
	return out
}

// record writes a new object, holds it back under --strict (checks it, when
// the pack is kept), or notes that it exists already.
func (u *resolver) record(id object.ID, typ object.Type, data []byte, dup bool) error {
	if u.held != nil && typ != object.Blob {
		return u.held.add(id, typ, data)
	}
	if dup {
		return nil
	}
	if u.check != nil {
		if err := u.check.object(id, typ, data); err != nil {
			return err
		}
	}
	return u.write(id, typ, data)
}

// write hands an object to the destination, and counts it.
func (u *resolver) write(id object.ID, typ object.Type, data []byte) error {
	wrote, err := u.dest.write(id, typ, data)
	if err != nil {
		return err
	}
	u.tally.count(wrote)
	return nil
}

func (u *resolver) done(idx int32, id object.ID, typ object.Type) {
	u.mu.Lock()
	e := u.entries.at(idx)
	e.typ = typ
	if !e.done && e.base != fullObject {
		u.resolvedDeltas++
	}
	e.done = true
	u.mu.Unlock()
}

// takeWaiting removes and returns the deltas waiting for entry idx (by
// offset or by id) or for the id itself.
func (u *resolver) takeWaiting(idx int32, id object.ID) []*job {
	u.mu.Lock()
	defer u.mu.Unlock()
	kids := u.waiting[idx]
	delete(u.waiting, idx)
	if p, ok := u.awaiting[id]; ok {
		kids = append(kids, p...)
		delete(u.awaiting, id)
	}
	for _, j := range kids {
		u.unpark(j)
	}
	return kids
}
