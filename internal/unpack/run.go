package unpack

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// entry is what is kept of each pack entry for the whole run.
type entry struct {
	off  int64
	id   object.ID
	typ  object.Type // the resolved object's type, once done
	done bool
	crc  uint32 // of the raw entry, when the pack is kept
}

// job is one unit of work for a worker: a full object to hash and write, or
// a delta to apply to a base that is done (entry base, or the external
// object baseID when base < 0).
type job struct {
	idx    int32
	typ    object.Type // full object; Bad for a delta
	data   []byte      // object data, or delta payload
	base   int32
	baseID object.ID
	// spilled: data was dropped while the delta waited (see park), and is
	// in the kept pack, or at spillAt in the spill file.
	spilled bool
	spillAt int64
}

type unpacker struct {
	ctx   context.Context
	opts  Options
	store *loose.Store
	dest  dest
	tx    *batch.Transaction
	fmt   object.Format
	cache *cache
	held  *held      // Strict, loose: objects kept back until checked
	check *packCheck // Strict, kept pack: objects checked as they come

	mu       sync.Mutex
	entries  []entry
	ids      map[object.ID]int32          // first entry of each id
	waiting  map[int32][]*job             // deltas whose base entry is in flight
	awaiting map[object.ID][]*job         // REF deltas whose base id is nowhere yet
	baseErrs map[object.ID]*BaseError     // pending because the store's copy is unreadable
	orphans  int                          // deltas whose OFS base is no entry
	parked   int64                        // data held by waiting and pending deltas
	reread   func(j *job) ([]byte, error) // a spilled delta's data
	spill    *spill                       // where an exploded pack's deltas spill
	external map[object.ID]bool           // REF_DELTA bases taken from the store
	written  int
	existing int
	// reservedBytes: given to opts.Reserve for entries (see reserve.go).
	reservedBytes int64
	err           error // first fatal error
	errored       bool  // Recover skipped something

	jobs     chan []*job
	gathered []*job // jobs gathered by the reader, not yet dispatched
	bytes    int64  // data held by batch
	budget   *budget
	wg       sync.WaitGroup // jobs not finished
}

// Run unpacks the pack stream in into store, publishing objects through a
// transaction of policy, which it ends (flushes) before returning — also
// after an error, so that what was written is durable. With opts.Keep the
// pack itself is kept, with its index, instead of loose objects.
func Run(ctx context.Context, in io.Reader, store *loose.Store, policy *batch.Policy, opts Options) (Result, error) {
	opts = opts.withDefaults()
	if opts.Keep != nil && opts.UnpackLimit > 0 {
		// git's choice: explode a pack of fewer objects than the limit.
		var b [pack.HeaderSize]byte
		n, _ := io.ReadFull(in, b[:])
		in = io.MultiReader(bytes.NewReader(b[:n]), in)
		if hdr, err := pack.ParseHeader(b[:n]); err == nil && hdr.Count < opts.UnpackLimit {
			opts.Keep = nil
		}
	}
	ropts := pack.ReaderOptions{Format: store.Format(), MaxSize: opts.MaxInputSize, Tee: opts.Tee}
	if opts.DryRun {
		return dryRun(ctx, pack.NewReader(in, ropts), opts)
	}
	u := &unpacker{
		ctx: ctx, opts: opts, store: store, tx: policy.Begin(), fmt: store.Format(),
		cache: newCache(opts.CacheSize), ids: map[object.ID]int32{}, external: map[object.ID]bool{},
		waiting: map[int32][]*job{}, awaiting: map[object.ID][]*job{}, baseErrs: map[object.ID]*BaseError{},
		jobs: make(chan []*job, opts.Workers), budget: newBudget(4 << 20 * int64(opts.Workers)),
	}
	var ld *looseDest
	var pd *packDest
	if opts.Keep == nil {
		ld = newLooseDest(store, u.tx, u.fail)
		u.dest, u.spill = ld, newSpill(store, u.tx, u.fmt)
		u.reread = u.spill.reread
	} else {
		var err error
		if pd, err = newPackDest(u); err != nil {
			return Result{}, errors.Join(err, u.tx.End())
		}
		u.dest, ropts.CRC32, u.reread = pd, true, pd.delta
		ropts.Tee = pd
		if opts.Tee != nil {
			ropts.Tee = io.MultiWriter(opts.Tee, pd)
		}
	}
	switch {
	case opts.Strict != nil && opts.Keep == nil:
		u.held = newHeld(u.fmt)
	case opts.Strict != nil:
		u.check = newPackCheck(opts.Strict, u.fmt, opts.Messages)
	}
	r := pack.NewReader(in, ropts)
	for w := 0; w < opts.Workers; w++ {
		go u.worker()
	}
	trailerErr := u.read(r)
	u.dispatch()
	close(u.jobs)
	u.wg.Wait()
	if u.spill != nil {
		u.spill.close()
	}
	if ld != nil {
		ld.wait() // before the --strict writes, which go straight to the store
	}
	err := u.finish(trailerErr)
	res := Result{Objects: len(u.entries), Written: u.written, Existing: u.existing, Bytes: r.Offset()}
	if pd != nil && err == nil {
		var sum []byte
		sum, res.KeepPath, err = pd.finish(r.Offset(), opts.Keep)
		res.Pack = hex.EncodeToString(sum)
	} else if pd != nil {
		pd.discard()
	}
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
func (u *unpacker) finish(trailerErr error) error {
	if err := u.firstErr(); err != nil {
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
	if u.errored {
		return ErrRecovered
	}
	return nil
}

func (u *unpacker) firstErr() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.err
}

// fail records the first fatal error; the run stops at the next entry.
func (u *unpacker) fail(err error) {
	u.mu.Lock()
	if u.err == nil {
		u.err = err
	}
	u.mu.Unlock()
}

// recoverable reports err (git's error() line) and says whether the run may
// go on: only with Recover, and only for entry-level errors.
func (u *unpacker) recoverable(err error) bool {
	if !u.opts.Recover {
		return false
	}
	for _, l := range errorLines(err) {
		fmt.Fprintf(u.opts.Messages, "error: %s\n", l)
	}
	u.mu.Lock()
	u.errored = true
	u.mu.Unlock()
	return true
}

// read is the reader loop. It returns the trailer's error, which git
// reports only after the other end-of-pack checks; every other error is
// recorded with fail.
func (u *unpacker) read(r *pack.Reader) (trailerErr error) {
	hdr, err := r.Header()
	if err != nil {
		u.fail(err)
		return nil
	}
	u.entries = make([]entry, 0, min(hdr.Count, 1<<16))
	for i := 0; ; i++ {
		if err := u.ctx.Err(); err != nil {
			u.fail(err)
			return nil
		}
		if u.firstErr() != nil {
			return nil
		}
		e, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if pack.Recoverable(err) && u.recoverable(err) {
				u.addEntry(r.Offset())
				continue
			}
			if errors.Is(err, pack.ErrChecksum) {
				return err
			}
			u.fail(err)
			return nil
		}
		idx := u.addEntry(e.Offset)
		if err := u.entry(r, idx, e); err != nil {
			if !(pack.Recoverable(err) && u.recoverable(err)) {
				u.fail(err)
				return nil
			}
		}
		if u.opts.Progress != nil {
			u.opts.Progress(i+1, int(hdr.Count), r.Offset())
		}
	}
}

func (u *unpacker) addEntry(off int64) int32 {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.entries = append(u.entries, entry{off: off})
	u.reserved()
	return int32(len(u.entries) - 1)
}

// streamAbove: non-delta blobs larger than this are streamed whatever
// core.bigFileThreshold says (git holds them in memory up to 512 MiB). The
// loose object written is the same; memory stays near 64 MiB plus the
// largest delta result instead of twice the largest blob.
const streamAbove = 16 << 20

// entry reads one entry's data and hands it on.
func (u *unpacker) entry(r *pack.Reader, idx int32, e pack.Entry) error {
	var data []byte
	var id object.ID
	var err error
	big := e.Type == object.Blob && e.Size > min(u.opts.BigFileThreshold, streamAbove)
	if big {
		id, err = u.stream(r, e)
	} else {
		data, err = readEntry(r, e.Size)
	}
	if err == nil && u.opts.Keep != nil {
		var crc uint32
		crc, err = r.CRC32() // also passes the whole entry on to the kept pack
		u.mu.Lock()
		u.entries[idx].crc = crc
		u.mu.Unlock()
	}
	if err != nil {
		return err
	}
	if big {
		return u.settleStreamed(idx, id)
	}
	switch e.Type {
	case object.OfsDelta:
		u.delta(&job{idx: idx, data: data, base: -1}, e.BaseOffset, object.ID{})
	case object.RefDelta:
		u.delta(&job{idx: idx, data: data, base: -1}, -1, e.BaseID)
	default:
		u.submit(&job{idx: idx, typ: e.Type, data: data})
	}
	return nil
}

// delta routes a delta to a job (base done), a wait on an entry in flight,
// or the pending list of an id seen nowhere yet.
func (u *unpacker) delta(j *job, baseOff int64, baseID object.ID) {
	u.mu.Lock()
	base := int32(-1)
	if baseOff >= 0 {
		k := sort.Search(len(u.entries), func(i int) bool { return u.entries[i].off >= baseOff })
		if k == len(u.entries) || u.entries[k].off != baseOff {
			u.orphans++ // git queues it under an offset no entry has
			u.mu.Unlock()
			return
		}
		base = int32(k)
	} else if k, ok := u.ids[baseID]; ok {
		base = k
	}
	if base >= 0 {
		ready := u.toEntry(j, base)
		u.mu.Unlock()
		if ready {
			u.submit(j)
		}
		return
	}
	u.mu.Unlock()
	if ok, err := u.store.Has(baseID); err != nil {
		u.fail(err)
		return
	} else if ok {
		j.baseID = baseID
		u.mu.Lock()
		u.external[baseID] = true
		u.mu.Unlock()
		u.submit(j)
		return
	}
	// Not in the store: wait for an entry of that id, unless one got done
	// while the store was asked.
	u.mu.Lock()
	if k, ok := u.ids[baseID]; ok {
		ready := u.toEntry(j, k)
		u.mu.Unlock()
		if ready {
			u.submit(j)
		}
		return
	}
	u.awaiting[baseID] = append(u.awaiting[baseID], j)
	u.park(j)
	u.mu.Unlock()
}

// toEntry points the delta j at the base entry k and says whether k is
// done (the caller then submits j, once u.mu is unlocked); if not, j waits
// for k. u.mu must be held.
func (u *unpacker) toEntry(j *job, k int32) (ready bool) {
	j.base = k
	if u.entries[k].done {
		return true
	}
	u.waiting[k] = append(u.waiting[k], j)
	u.park(j)
	return false
}

// Jobs go to the workers in batches, to wake them (and switch goroutines)
// once per batch rather than once per object.
const (
	batchJobs  = 32
	batchBytes = 1 << 20
)

// submit queues a job for the workers, within the memory budget.
func (u *unpacker) submit(j *job) {
	n := int64(len(j.data))
	if !u.budget.tryAcquire(n) {
		u.dispatch() // what waits in the batch must be able to finish
		u.budget.acquire(n)
	}
	u.gathered = append(u.gathered, j)
	u.bytes += n
	if len(u.gathered) >= batchJobs || u.bytes >= batchBytes {
		u.dispatch()
	}
}

// flush sends the gathered jobs.
func (u *unpacker) dispatch() {
	if len(u.gathered) == 0 {
		return
	}
	u.wg.Add(len(u.gathered))
	u.jobs <- u.gathered
	u.gathered, u.bytes = make([]*job, 0, batchJobs), 0
}

// readEntry reads an entry's inflated data. The declared size is not
// trusted beyond a fixed first allocation; the buffer grows with the data.
func readEntry(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, min(size, 8<<20))
	for {
		if len(buf) == cap(buf) && int64(len(buf)) < size {
			buf = append(buf, 0)[:len(buf)] // the data outgrew the first allocation
		}
		// At the declared size the buffer is full: the Reader then only
		// checks that the entry ends there.
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
