package unpack

import (
	"slices"

	"github.com/git-durable/git-durable/object"
)

// heal hands Options.Heal the bases of the store that deltas could not
// read (see redirect), once every job dispatched is done and so every
// such delta is parked, and resolves those deltas against the copies it
// wrote. It runs on the reader's goroutine after the last entry, the
// workers still serving the queue.
func (u *resolver) heal() {
	u.drv.wait()
	if u.tally.first() != nil {
		return
	}
	u.mu.Lock()
	var ids []object.ID
	for id := range u.baseErrs {
		if _, ok := u.awaiting[id]; ok {
			ids = append(ids, id)
		}
	}
	u.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	slices.SortFunc(ids, object.ID.Compare)
	if err := u.opts.Heal(ids); err != nil {
		return // finish reports the unreadable bases
	}
	for _, id := range ids {
		u.mu.Lock()
		jobs := u.awaiting[id]
		delete(u.awaiting, id)
		delete(u.baseErrs, id)
		u.external[id] = true
		for _, j := range jobs {
			u.unpark(j)
		}
		u.mu.Unlock()
		for _, j := range jobs {
			j.base, j.baseID = -1, id
			u.submit(j)
		}
	}
	u.drv.dispatch()
}
