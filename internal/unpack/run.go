package unpack

import (
	"context"
	"errors"
	"io"
	"runtime"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/pack"
)

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
	if opts.Keep != nil && opts.Receiving != nil {
		opts.Progress = opts.Receiving
	}
	if opts.Keep == nil {
		opts.Resolving = nil
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
	u.resolving()
	u.drv.dispatch()
	u.drv.drain()
	if u.opts.Heal != nil && trailerErr == nil {
		u.heal()
	}
	u.drv.wait()
	u.resolving()
	if u.tally.first() == nil {
		u.secondPass()
	}
	u.resolving()
	u.drv.stop()
	u.aside.release()
	u.dest.wait() // before the --strict writes, which go straight to the store
	err := u.finish(trailerErr)
	// The workers are gone and the checks done: the delta bases are not
	// needed again, and the index files of a kept pack come next.
	u.cache = nil
	return err
}

// resolving tells opts.Resolving how many of the pack's deltas are
// resolved, where the pack has any.
func (u *resolver) resolving() {
	if u.opts.Resolving == nil {
		return
	}
	u.mu.Lock()
	done, total := u.resolvedDeltas, u.deltas
	u.mu.Unlock()
	if total > 0 {
		u.opts.Resolving(done, total)
	}
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
