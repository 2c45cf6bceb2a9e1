package unpack

import "errors"

// The second pass. A delta whose base entry is done but has left the cache
// is not resolved when it arrives: reading the base back would mean, from
// a kept pack, inflating and applying its whole chain again, and, from
// the loose objects of an exploded one, inflating the base again, for
// every such delta; how often that happens would depend on the order the
// server wrote its pack in. The delta is put off instead, and so is every
// delta on it that arrives later — unless, in a kept pack, the base is a
// full object the cache keeps, within a budget (readBack): then reading
// it back is one entry inflated, and the deltas on it that follow find it
// cached. In git.git to v2.50.0, in GitHub's order, all 18,845 deltas
// whose base is more than 16 MiB back are on full objects; putting them
// off put 150,126 entries in their trees off with them. Once the stream has ended, the deltas put
// off are resolved tree by tree, as git index-pack resolves them all: a
// kept pack's from the full object at the root of each tree, down the
// entries that lead to them; an exploded pack's from the nearest base
// done, one loose object. Each base is kept only while the walk is below
// it. Each entry on the way down is read back and applied once more, each
// delta put off is applied once; the trees are independent, and the
// workers share them out. The data of the deltas put off is held within
// laterMax; past it, a kept pack's is read back from the pack, an exploded
// pack's goes to the spill file.

// laterMax bounds the delta data held in memory by the deltas put off,
// each counted with laterEntry for its bookkeeping; the data of the others
// is read back from the kept pack.
const (
	laterMax   = 16 << 20
	laterEntry = 64
)

// walkMax bounds the bases one walk of a tree holds at once (along its
// path, for the entries with branches left to take: a few MiB for the
// trees of git.git). Past it, the bases farthest up are dropped, and
// derived again from the pack when the walk comes back to them.
var walkMax int64 = 8 << 20 // a variable for the tests

// errLater is how base says that a delta of a kept pack must wait for the
// second pass.
var errLater = errors.New("delta put off to the second pass")

// laterDeltas are the deltas put off to the second pass.
type laterDeltas struct {
	n       int
	data    map[int32][]byte // some of their data, within laterMax
	bytes   int64
	spilled map[int32]int64 // exploded: where the data of the others is in the spill file
}

// putOff puts the delta j off to the second pass, and the deltas that
// wait for it, and for those: they are entries of its tree, and keep no
// job. u.mu must be held.
func (u *resolver) putOff(j *job) {
	for stack := []*job{j}; len(stack) > 0; {
		j, stack = stack[len(stack)-1], stack[:len(stack)-1]
		u.putOffOne(j)
		for _, k := range u.waiting[j.idx] {
			u.unpark(k)
			stack = append(stack, k)
		}
		delete(u.waiting, j.idx)
	}
	u.reserveLater()
}

// putOffOne puts the delta j off, keeping its data if it fits within
// laterMax, else, exploded, writing it to the spill file (or keeping it
// if that fails, as park does). u.mu must be held.
func (u *resolver) putOffOne(j *job) {
	u.entries.at(j.idx).later = true
	u.later.n++
	if j.spilled {
		u.laterSpilled(j.idx, j.spillAt)
		return
	}
	cost := int64(len(j.data)) + laterEntry
	if u.later.bytes+cost > laterMax {
		if off, err := u.aside.put(j.data); err == nil {
			u.laterSpilled(j.idx, off)
			return
		}
	}
	if u.later.data == nil {
		u.later.data = map[int32][]byte{}
	}
	u.later.data[j.idx] = j.data
	u.later.bytes += cost
}

// laterSpilled records where in the spill file the data of entry k is
// (nothing for a kept pack, off -1, whose entries are read back from it).
func (u *resolver) laterSpilled(k int32, off int64) {
	if off < 0 {
		return
	}
	if u.later.spilled == nil {
		u.later.spilled = map[int32]int64{}
	}
	u.later.spilled[k] = off
}

// laterDelta returns the delta data of entry k, kept or read back.
func (u *resolver) laterDelta(k int32) ([]byte, error) {
	u.mu.Lock()
	data, ok := u.later.data[k]
	if ok {
		delete(u.later.data, k)
		u.later.bytes -= int64(len(data)) + laterEntry
	}
	off, spilled := u.later.spilled[k]
	u.mu.Unlock()
	if ok {
		return data, nil
	}
	if !spilled {
		off = -1 // in the kept pack
	}
	return u.aside.reread(&job{idx: k, spilled: true, spillAt: off})
}

// secondPass resolves the deltas put off, the trees shared out among the
// workers one by one (in batches, the largest trees would go to one
// worker), and returns when all are done.
func (u *resolver) secondPass() {
	if u.later.n == 0 {
		return
	}
	f := u.plant()
	for _, r := range f.roots {
		u.drv.send(&job{idx: r, tree: &walk{f: f}})
	}
	u.drv.wait()
}
