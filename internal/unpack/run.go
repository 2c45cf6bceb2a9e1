package unpack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
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
	parked   int64                    // data held by waiting and pending deltas
	aside    aside                    // where deltas' data goes that memory cannot hold
	later    laterDeltas              // deltas put off to the second pass
	lead     lead                     // the reader's lead over the workers
	external map[object.ID]bool       // REF_DELTA bases taken from the store
	// reservedBytes: given to opts.Reserve for entries and the second
	// pass (see reserve.go).
	reservedBytes int64
	laterHeld     int64 // of reservedBytes, for the second pass
	roomBytes     int64 // given to opts.ReserveRoom

	drv   *driver // the workers, and the jobs on their way to them
	tally tally   // objects written and found, the first error
}

// Run unpacks the pack stream in into store, publishing objects through a
// transaction of policy, which it ends (flushes) before returning — also
// after an error, so that what was written is durable. With opts.Keep the
// pack itself is kept, with its index, instead of loose objects.
func Run(ctx context.Context, in io.Reader, store *loose.Store, policy *batch.Policy, opts Options) (Result, error) {
	opts = opts.withDefaults()
	if opts.Keep != nil && opts.UnpackLimit > 0 {
		// git's choice: explode a pack of fewer objects than the limit.
		var hdr pack.Header
		var err error
		if hdr, in, err = pack.PeekHeader(in); err == nil && hdr.Count < opts.UnpackLimit {
			opts.Keep = nil
		}
	}
	ropts := pack.ReaderOptions{Format: store.Format(), MaxSize: opts.MaxInputSize, Tee: opts.Tee}
	if opts.DryRun {
		return dryRun(ctx, pack.NewReader(in, ropts), opts)
	}
	if opts.Keep != nil && opts.PackPolicy != nil {
		policy = opts.PackPolicy
	}
	u := newResolver(ctx, store, policy, opts)
	defer context.AfterFunc(ctx, func() {
		u.mu.Lock()
		u.lead.wake.Broadcast()
		u.mu.Unlock()
	})()
	if err := u.openDest(&ropts); err != nil {
		return Result{Kept: true}, errors.Join(err, u.tx.End())
	}
	r := pack.NewReader(in, ropts)
	return u.result(r, u.drive(r))
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

// openDest sets up where the objects go, loose objects or a kept pack,
// and what the reader must give it.
func (u *resolver) openDest(ropts *pack.ReaderOptions) error {
	if u.opts.Keep == nil {
		u.dest = newLooseDest(u.store, u.tx, u.fail, &u.work)
		u.aside = newSpill(u.store, u.tx, u.fmt, &u.work)
	} else {
		pd, err := newPackDest(u.store, u.tx, u, &u.work)
		if err != nil {
			return err
		}
		u.dest, ropts.CRC32, u.aside = pd, true, pd
		ropts.Tee = pd
		if u.opts.Tee != nil {
			ropts.Tee = io.MultiWriter(u.opts.Tee, pd)
		}
	}
	switch {
	case u.opts.Strict != nil && u.opts.Keep == nil:
		u.held = newHeld(u.fmt)
	case u.opts.Strict != nil:
		u.check = newPackCheck(u.opts.Strict, u.fmt, u.opts.Messages)
	}
	return nil
}

// drive reads the stream to its end with the workers, then runs the second
// pass and the checks of the end (finish).
func (u *resolver) drive(r *pack.Reader) error {
	u.drv.start(u.opts.Workers, func() func(*job) {
		h := u.fmt.NewHasher()
		return func(j *job) { u.resolveJob(h, j) }
	})
	trailerErr := u.read(r)
	u.drv.dispatch()
	u.drv.drain()
	if u.opts.Heal != nil && trailerErr == nil {
		u.heal()
	}
	u.drv.wait()
	if u.tally.first() == nil {
		u.secondPass()
	}
	u.drv.stop()
	u.aside.release()
	u.dest.wait() // before the --strict writes, which go straight to the store
	err := u.finish(trailerErr)
	// The workers are gone and the checks done: the delta bases are not
	// needed again, and the index files of a kept pack come next.
	u.cache = nil
	return err
}

// result publishes a kept pack, ends the transaction and says what the run
// did.
func (u *resolver) result(r *pack.Reader, err error) (Result, error) {
	res := Result{Objects: u.entries.len(), Bytes: r.Offset(), Work: u.workDone()}
	res.Written, res.Existing = u.tally.counts()
	err = u.dest.end(&res, r.Offset(), u.opts.Keep, err)
	u.unreserve()
	if endErr := u.tx.End(); err == nil {
		err = endErr
	}
	if err == nil {
		res.Checksum, res.Rest = r.Checksum(), r.Rest()
		res.Bytes -= int64(len(res.Checksum))
	}
	return res, err
}

// workDone sums up the run's Work: the stream's entries, each inflated
// once, and what was read back and applied.
func (u *resolver) workDone() Work {
	inflated, bytes, applied := u.work.Totals()
	return Work{Inflated: int64(u.entries.len()) + inflated, Reread: bytes, Patched: applied}
}

func (opts Options) withDefaults() Options {
	if opts.BigFileThreshold <= 0 {
		opts.BigFileThreshold = 512 << 20
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = 16 << 20
	}
	if opts.Messages == nil {
		opts.Messages = io.Discard
	}
	return opts
}

// finish runs what comes after the last entry, in git's order: unresolved
// deltas, the --strict checks and writes, then the trailer; for a kept
// pack, the trailer comes before the checks of the whole pack, as in git
// index-pack.
func (u *resolver) finish(trailerErr error) error {
	if err := u.tally.first(); err != nil {
		return err
	}
	for id, be := range u.baseErrs {
		if _, ok := u.awaiting[id]; !ok {
			continue
		}
		// git reports the unreadable base; with -r it drops the delta.
		if !u.recoverable(be) {
			return be
		}
		delete(u.awaiting, id)
	}
	if n := u.unresolved(); n > 0 {
		return u.unresolvedErr(n)
	}
	if u.held != nil {
		if err := u.writeHeld(); err != nil {
			return err
		}
	}
	if trailerErr != nil {
		return trailerErr
	}
	if u.check != nil {
		if err := u.checkPack(); err != nil {
			return err
		}
	}
	if u.tally.recovered() {
		return ErrRecovered
	}
	return nil
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
