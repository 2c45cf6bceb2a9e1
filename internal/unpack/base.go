package unpack

import (
	"errors"

	"github.com/git-durable/git-durable/object"
)

// base returns the base of a delta job whose base is done.
func (u *resolver) base(j *job) (object.Type, []byte, error) {
	id := j.baseID
	if j.base >= 0 {
		u.mu.Lock()
		id = u.entries.id(j.base)
		u.mu.Unlock()
	}
	if typ, data, ok := u.cache.Get(id); ok {
		return typ, data, nil
	}
	if u.held != nil {
		if typ, data, ok := u.held.get(id); ok {
			return typ, data, nil
		}
	}
	if j.base >= 0 {
		// An entry that left the cache: read back only if that is one
		// entry to inflate (see readBack), else put off.
		got, err := u.readBack(j.base, id)
		if err != nil || got.ok {
			return got.typ, got.data, err
		}
		return object.Bad, nil, errLater
	}
	typ, data, err := u.dest.read(id)
	if err != nil {
		return object.Bad, nil, &BaseError{ID: id, Err: err}
	}
	u.cache.Put(id, typ, data)
	return typ, data, nil
}

// readBack reads back from a kept pack the base entry k (of id id) of a
// delta, when k is a full object that the cache holds once read, and the
// bytes read back so far stay within the bytes received: one entry to inflate for
// the deltas on it that come while it is cached, where putting them off
// reads back each of them, and the deltas on them, in the second pass. A
// base derived from others (its chain applied again), one the cache would
// not keep (read again for the next delta), or one past the budget (an
// order made to make the cache forget its bases) is not read back: ok is
// false, and the delta is put off.
func (u *resolver) readBack(k int32, id object.ID) (fromPack, error) {
	u.mu.Lock()
	e := u.entries.at(k)
	whole, off := e.base == fullObject, e.off
	u.mu.Unlock()
	if !whole {
		return fromPack{}, nil
	}
	got, err := u.dest.wholeAt(off, func(size, received int64) bool {
		return u.cache.Holds(size) && u.readBackBytes.Add(size) <= received
	})
	if got.ok {
		u.cache.Put(id, got.typ, got.data)
	}
	return got, err
}

// redirection is what redirect did with a job.
type redirection int

const (
	notRedirected redirection = iota
	parked                    // waits for an entry of the base id
	ready                     // j.base is now an entry that is done
)

// redirect handles an external base that exists but cannot be read (a
// broken loose object): the pack may carry the object itself, so the delta
// is pointed at an entry of that id, or parked until one is done. The read
// error is kept, to be reported if no such entry ever comes.
func (u *resolver) redirect(j *job, err error) redirection {
	var be *BaseError
	if !errors.As(err, &be) {
		return notRedirected
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	// No longer in flight: what waits for it may wait for more input.
	u.entries.at(j.idx).flight = false
	u.uncount(j.idx)
	if k, ok := u.entries.find(j.baseID); ok {
		if u.toEntry(j, k) {
			return ready
		}
		return parked
	}
	u.awaiting[j.baseID] = append(u.awaiting[j.baseID], j)
	u.park(j)
	u.baseErrs[j.baseID] = be
	return parked
}
