package unpack

import (
	"errors"
	"fmt"
	"io"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// resolveJob resolves one job. Jobs are run even after a failure elsewhere: each
// holds a complete object (or a delta to one), and writing what is good keeps
// what was received, as git keeps the objects before the one it dies on.
func (u *resolver) resolveJob(h *object.Hasher, j *job) {
	if j.tree != nil {
		u.resolveTree(h, j.idx, j.tree)
		return
	}
	if w := j.inHand; w != nil {
		j.inHand = nil
		u.resolveAll(h, []waiter{*w})
		return
	}
	if j.typ != object.Bad {
		u.resolve(h, j.idx, j.typ, j.data)
		return
	}
	typ, base, err := u.base(j)
	if err != nil && j.base < 0 {
		switch u.redirect(j, err) {
		case parked:
			return
		case ready:
			typ, base, err = u.base(j)
		}
	}
	if err == errLater {
		u.mu.Lock()
		u.putOff(j)
		u.mu.Unlock()
		return
	}
	if err != nil {
		if !u.recoverable(err) {
			u.fail(err)
		}
		return
	}
	u.apply(h, j, typ, base)
}

// apply applies a delta job to its base and resolves the result.
func (u *resolver) apply(h *object.Hasher, j *job, typ object.Type, base []byte) {
	u.resolveAll(h, []waiter{{j, typ, base}})
}

// waiter is a delta whose base is in hand.
type waiter struct {
	j    *job
	typ  object.Type
	base []byte
}

// resolve settles a complete object, then the deltas that waited for it.
func (u *resolver) resolve(h *object.Hasher, idx int32, typ object.Type, data []byte) {
	u.resolveAll(h, u.settle(h, idx, typ, data))
}

// resolveAll resolves deltas whose bases are in hand, and the deltas that
// waited for their results, and so on, with an explicit stack: a chain of
// any length costs no goroutine stack, and a base is dropped as soon as its
// last waiting delta is taken off the stack. Once the reader is done, the
// stack's oldest delta goes to a worker that waits for a job, with its
// base in hand: a tree of deltas that waited for one base (the reader ran
// ahead of it) is shared out, not left to the one worker that finished the
// base while the others have nothing to do.
func (u *resolver) resolveAll(h *object.Hasher, stack []waiter) {
	for len(stack) > 0 {
		if len(stack) > 1 && u.drv.idle() && u.handOffWaiter(stack[0]) {
			stack[0] = waiter{}
			stack = stack[1:]
			continue
		}
		w := stack[len(stack)-1]
		stack[len(stack)-1] = waiter{}
		stack = stack[:len(stack)-1]
		if w.j.spilled {
			if err := u.reload(w.j); err != nil {
				u.fail(err)
				continue
			}
		}
		data, err := applyDelta(w.base, w.j.data)
		if err != nil {
			u.fail(&DeltaError{Err: err})
			continue
		}
		u.work.Applied()
		stack = append(stack, u.settle(h, w.j.idx, w.typ, data)...)
	}
}

// handOffWaiter sends w to the workers as a job of its own, and says
// whether the queue took it.
func (u *resolver) handOffWaiter(w waiter) bool {
	w.j.inHand = &w
	if u.drv.trySend(w.j) {
		return true
	}
	w.j.inHand = nil
	return false
}

// ErrExpansion means a delta describes a result far larger than the base
// and the delta together: a few bytes of "copy 64 KiB" instructions can
// describe gigabytes (a delta bomb). git's pack-objects never makes a delta
// whose result is more than about twice its base.
var ErrExpansion = errors.New("delta result too large for its base and delta")

// maxExpansion bounds a delta's result: 4× its base and delta, or 64 MiB.
func maxExpansion(base, delta int) uint64 {
	return max(64<<20, 4*uint64(base+delta))
}

// applyDelta applies delta to base within maxExpansion.
func applyDelta(base, delta []byte) ([]byte, error) {
	if _, size, _, err := pack.DeltaHeader(delta); err == nil && size > maxExpansion(len(base), len(delta)) {
		return nil, fmt.Errorf("%w: %d bytes from a base of %d and a delta of %d", ErrExpansion, size, len(base), len(delta))
	}
	return pack.ApplyDelta(nil, base, delta)
}

// stream writes a big non-delta blob straight from the pack to the store
// and returns its id; settleStreamed finishes it once the entry is
// consumed.
func (u *resolver) stream(r io.Reader, e pack.Entry) (object.ID, error) {
	id, wrote, err := u.dest.stream(e.Size, r)
	var ie *pack.InflateError
	if errors.As(err, &ie) && ie.Code != 1 {
		return id, fmt.Errorf("inflate returned (%d)", ie.Code) // git dies here
	}
	if err != nil {
		return id, err
	}
	u.tally.count(wrote)
	return id, nil
}

// settleStreamed marks a streamed blob done and resolves the deltas that
// waited for it, reading it back once. It runs after the whole entry was
// consumed, so that a kept pack already holds all of it.
func (u *resolver) settleStreamed(idx int32, id object.ID) error {
	u.mu.Lock()
	u.entries.setID(idx, id)
	u.entries.index(idx)
	u.mu.Unlock()
	if u.opts.Object != nil {
		u.opts.Object(id, object.Blob, nil)
	}
	u.done(idx, id, object.Blob)
	kids := u.takeWaiting(idx, id)
	if len(kids) == 0 {
		return nil
	}
	typ, base, err := u.dest.read(id)
	if err != nil {
		return &BaseError{ID: id, Err: err}
	}
	u.resolveAll(u.fmt.NewHasher(), withBase(kids, typ, base))
	return nil
}
