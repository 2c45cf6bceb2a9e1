package unpack

import "sync"

// The reader's lead. Inflating the stream is quicker than hashing and
// applying what it holds, so the reader runs ahead of the workers, and
// every delta it reads whose base is still in a worker's hands waits: at
// git.git's 380,000 objects, over 100,000 of them at once, their data
// spilled past parkMax and read back later, the collector scanning their
// jobs, a quarter of the run's CPU. The reader waits instead while more
// than leadMax deltas wait for a base in flight, which the workers will
// finish without reading further. A delta whose wait depends on input not
// read yet (on a REF_DELTA whose base has not come, or on an entry put off
// to the second pass) is not counted, so that the reader never waits for
// what only it can bring.

// leadMax bounds the deltas that wait for a base in flight.
const leadMax = 4096

// lead counts the waiting deltas that hold the reader back.
type lead struct {
	waiting int        // deltas counted
	wake    *sync.Cond // on u.mu: the count fell, or the run failed
}

// countWait counts the delta j, which starts to wait for entry k, if k
// is in flight (or counted itself: its own base is). u.mu must be held.
func (u *resolver) countWait(j *job, k int32) {
	if e := u.entries.at(k); e.flight && !e.done || e.counted {
		u.entries.at(j.idx).counted = true
		u.lead.waiting++
	}
}

// uncount stops counting the deltas waiting for entry k, and those waiting
// for them, when k no longer resolves without more input (it was put off,
// or waits for an id). u.mu must be held.
func (u *resolver) uncount(k int32) {
	stack := []int32{k}
	for len(stack) > 0 {
		k, stack = stack[len(stack)-1], stack[:len(stack)-1]
		for _, j := range u.waiting[k] {
			if e := u.entries.at(j.idx); e.counted {
				e.counted = false
				u.lead.waiting--
				stack = append(stack, j.idx)
			}
		}
	}
	u.lead.wake.Broadcast()
}

// unwait stops counting j, which no longer waits. u.mu must be held.
func (u *resolver) unwait(j *job) {
	if e := u.entries.at(j.idx); e.counted {
		e.counted = false
		if u.lead.waiting--; u.lead.waiting == leadMax {
			u.lead.wake.Broadcast()
		}
	}
}

// holdBack returns once no more than leadMax deltas wait for a base in
// flight, or the run failed or was canceled. What the reader gathered goes
// to the workers first: it may be what the deltas wait for.
func (u *resolver) holdBack() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for u.lead.waiting > leadMax && u.tally.first() == nil && u.ctx.Err() == nil {
		if u.drv.holding() {
			u.mu.Unlock()
			u.drv.dispatch()
			u.mu.Lock()
			continue
		}
		u.lead.wake.Wait()
	}
}
