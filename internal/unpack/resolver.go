package unpack

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// resolver is one run: it turns entries into objects, with the
// graph of deltas waiting for their bases under its lock (mu). What it
// works with owns its own state: the driver carries jobs to the workers,
// the tally counts what came of them, and the destination (dest, aside)
// writes and reads back objects. Lock order: mu before the tally's; the
// driver takes no lock of the resolver's.
type resolver struct {
	ctx   context.Context
	opts  Options
	store *loose.Store
	dest  dest
	tx    *batch.Transaction
	fmt   object.Format
	cache *pack.ObjectCache[object.ID] // delta bases by id
	work  pack.Counts                  // what was read back and applied
	// readBackBytes: of the full objects read back from a kept pack for
	// deltas whose base left the cache (see readBack).
	readBackBytes atomic.Int64
	held          *held      // Strict, loose: objects kept back until checked
	check         *packCheck // Strict, kept pack: objects checked as they come

	// The delta graph, under mu.
	mu       sync.Mutex
	entries  *table                   // every entry, and the first of each id
	waiting  map[int32][]*job         // deltas whose base entry is in flight
	awaiting map[object.ID][]*job     // REF deltas whose base id is nowhere yet
	baseErrs map[object.ID]*BaseError // pending because the store's copy is unreadable
	orphans  int                      // deltas whose OFS base is no entry
	// deltas and resolvedDeltas count the pack's deltas, and those
	// resolved (for opts.Resolving).
	deltas, resolvedDeltas int
	parked                 int64              // data held by waiting and pending deltas
	aside                  aside              // where deltas' data goes that memory cannot hold
	later                  laterDeltas        // deltas put off to the second pass
	lead                   lead               // the reader's lead over the workers
	external               map[object.ID]bool // REF_DELTA bases taken from the store
	// reservedBytes: given to opts.Reserve for entries and the second
	// pass (see reserve.go).
	reservedBytes int64
	laterHeld     int64 // of reservedBytes, for the second pass
	roomBytes     int64 // given to opts.ReserveRoom

	drv   *driver // the workers, and the jobs on their way to them
	tally tally   // objects written and found, the first error
}

// newResolver is a run's state before the first entry.
func newResolver(ctx context.Context, store *loose.Store, policy *batch.Policy, opts Options) *resolver {
	u := &resolver{
		ctx: ctx, opts: opts, store: store, tx: policy.Begin(), fmt: store.Format(),
		cache: pack.NewObjectCache[object.ID](opts.CacheSize), entries: newTable(store.Format()), external: map[object.ID]bool{},
		waiting: map[int32][]*job{}, awaiting: map[object.ID][]*job{}, baseErrs: map[object.ID]*BaseError{},
		drv: newDriver(opts.Workers),
	}
	u.lead.wake = sync.NewCond(&u.mu)
	return u
}

// fail records the first fatal error; the run stops at the next entry.
func (u *resolver) fail(err error) {
	u.tally.fail(err)
	u.mu.Lock()
	u.lead.wake.Broadcast() // a reader held back stops
	u.mu.Unlock()
}

// recoverable reports err (git's error() line) and says whether the run may
// go on: only with Recover, and only for entry-level errors.
func (u *resolver) recoverable(err error) bool {
	if !u.opts.Recover {
		return false
	}
	for _, l := range errorLines(err) {
		fmt.Fprintf(u.opts.Messages, "error: %s\n", l)
	}
	u.tally.skip()
	return true
}
