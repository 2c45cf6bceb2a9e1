package unpack

import (
	"errors"
	"io"
	"sync"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// dest is where resolved objects go: loose objects, or the received pack
// kept as it is with an index.
type dest interface {
	// write keeps a resolved object and says whether it was new.
	write(id object.ID, typ object.Type, data []byte) (wrote bool, err error)
	// read returns an object of the pack (or of the store) that fell out of
	// the base cache.
	read(id object.ID) (object.Type, []byte, error)
	// stream takes a big blob's data from the pack without holding it.
	stream(size int64, r io.Reader) (id object.ID, wrote bool, err error)
	// wait returns once every write in flight is done, before the --strict
	// writes, which go straight to the store.
	wait()
	// end completes what the run wrote, given how it went (err): it
	// publishes a kept pack, or removes it, and sets what res says of the
	// destination.
	end(res *Result, size int64, keep *Keep, err error) error
	// memory is how the run reserves memory for this destination.
	memory() memoryPlan
	// readsByID reports whether a done object is read by its id (the
	// store holds it once written), so that the second pass needs no chain
	// below it; else only the received pack holds it (objectAt).
	readsByID() bool
	// objectAt reads back the object of the done entry at off, where only
	// the received pack holds it (its chain applied again); not ok where a
	// done object is read by its id (read).
	objectAt(off int64) (fromPack, error)
	// wholeAt reads back the full object at off of the received pack when
	// afford agrees to its size and to the bytes received so far; not ok
	// where it does not, or where the pack is not kept (see
	// resolver.readBack).
	wholeAt(off int64, afford func(size, received int64) bool) (fromPack, error)
}

// fromPack is an object read back from the received pack, where ok: its
// type and data.
type fromPack struct {
	typ  object.Type
	data []byte
	ok   bool
}

// memoryPlan is how a run reserves memory (see reserve.go): the deltas
// put off to the second pass reserved all at once (laterAtOnce: laterMax
// as the first is put off) or as they grow. The room asked for above what
// the run holds is the same for every destination (reserveRoom).
type memoryPlan struct {
	laterAtOnce bool
}

// publishers is how many objects may wait at once for their writeout and
// rename: the device works on several while the CPUs go on.
const publishers = 8

// looseDest writes every new object as a loose object of the store. The
// worker writes the temporary file; publishers give it its writeout and
// rename, so that waiting for the device overlaps with the work of
// resolving. Until published, an object is read from memory.
type looseDest struct {
	store *loose.Store
	tx    *batch.Transaction
	fail  func(error)
	work  *pack.Counts // reads of the store

	queue chan *publication
	wg    sync.WaitGroup

	mu       sync.Mutex
	inflight map[object.ID]*publication
	direct   bool // after wait: write and publish on the caller's goroutine
	lost     int  // objects counted as written whose publication failed
}

// publication is a loose object written to its temporary file, waiting
// for a publisher to give it its writeout and rename.
type publication struct {
	w    *loose.Written
	typ  object.Type
	data []byte
}

func newLooseDest(store *loose.Store, tx *batch.Transaction, fail func(error), work *pack.Counts) *looseDest {
	d := &looseDest{store: store, tx: tx, fail: fail, work: work, queue: make(chan *publication, 2*publishers),
		inflight: map[object.ID]*publication{}}
	for i := 0; i < publishers; i++ {
		d.wg.Add(1)
		go d.publish()
	}
	return d
}

func (d *looseDest) publish() {
	defer d.wg.Done()
	for p := range d.queue {
		err := d.store.Publish(d.tx, p.w)
		if err != nil {
			d.fail(err)
		}
		d.mu.Lock()
		delete(d.inflight, p.w.ID())
		if err != nil {
			d.lost++ // its temporary file is gone
		}
		d.mu.Unlock()
	}
}

func (d *looseDest) write(id object.ID, typ object.Type, data []byte) (bool, error) {
	need, err := d.store.Need(id)
	if err != nil || !need {
		return false, err
	}
	d.mu.Lock()
	direct := d.direct
	d.mu.Unlock()
	if direct {
		return true, d.store.Write(d.tx, id, typ, data)
	}
	w, err := d.store.Prepare(d.tx, id, typ, data)
	if err != nil {
		return false, err
	}
	p := &publication{w: w, typ: typ, data: data}
	d.mu.Lock()
	d.inflight[id] = p
	d.mu.Unlock()
	d.queue <- p
	return true, nil
}

func (d *looseDest) read(id object.ID) (object.Type, []byte, error) {
	d.mu.Lock()
	p, ok := d.inflight[id]
	d.mu.Unlock()
	if ok {
		return p.typ, p.data, nil
	}
	typ, data, err := d.store.Read(id)
	if err == nil {
		d.work.Inflated(len(data))
	}
	return typ, data, err
}

func (d *looseDest) stream(size int64, r io.Reader) (object.ID, bool, error) {
	return d.store.WriteStream(d.tx, object.Blob, size, endedReader{r})
}

// memory: an exploded pack holds less, and must stay within 64 MiB and its
// largest object beside what grows with its entries (their table, and
// room as a kept pack's, roomPerEntry each): its put-off deltas are
// reserved as they grow.
func (d *looseDest) memory() memoryPlan { return memoryPlan{} }

// readsByID: every done object is written to the store.
func (d *looseDest) readsByID() bool { return true }

// objectAt: a done object is read by its id, from the store.
func (d *looseDest) objectAt(int64) (fromPack, error) { return fromPack{}, nil }

// wholeAt: nothing is read back from an exploded pack.
func (d *looseDest) wholeAt(int64, func(size, received int64) bool) (fromPack, error) {
	return fromPack{}, nil
}

// wait returns once everything written is published; later writes are
// published on the caller's goroutine.
func (d *looseDest) wait() {
	close(d.queue)
	d.wg.Wait()
	d.mu.Lock()
	d.direct = true
	d.mu.Unlock()
}

// end counts out the objects whose publication failed.
func (d *looseDest) end(res *Result, _ int64, _ *Keep, err error) error {
	res.Written -= d.lost
	return err
}

// endedReader tells the store in its own terms (loose.ErrEnded) that an
// entry's zlib stream ended before the size its header declared, which the
// pack reader reports as an *pack.InflateError with zlib's Z_STREAM_END.
type endedReader struct{ r io.Reader }

func (e endedReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	var ie *pack.InflateError
	if errors.As(err, &ie) && ie.Code == 1 {
		err = loose.ErrEnded
	}
	return n, err
}
