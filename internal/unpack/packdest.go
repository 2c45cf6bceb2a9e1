package unpack

import (
	"bufio"
	"encoding/hex"
	"errors"
	"io"
	"sync"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// Keep asks Run to keep the received pack as it is, with its index and
// reverse index, instead of exploding it into loose objects — git index-pack
// --stdin --fix-thin: a thin pack is completed with its bases from the store.
type Keep struct {
	// File publishes a .keep file with the pack, holding Message and a
	// newline when Message is set (empty otherwise).
	File    bool
	Message string
	// Promisor publishes a .promisor file with the pack (after the .keep,
	// before the .pack, as git's index-pack --promisor), holding
	// PromisorText as it is: git's fetch-pack writes there the refs it
	// fetched, "<id> <name>" lines, or nothing. Git takes the objects of
	// such a pack, and those they name, as promised by the remote.
	Promisor     bool
	PromisorText string
	// Compression is the zlib level of the bases appended to complete a
	// thin pack (core.compression; git's default is -1).
	Compression int
}

// keptEntries is what a kept pack asks about its entries of the resolver,
// which owns the table of entries (and its lock).
type keptEntries interface {
	// located returns the offset and type of the entry holding id, once
	// that entry is resolved.
	located(id object.ID) (off int64, typ object.Type, ok bool)
	// offsetOf returns where entry idx starts.
	offsetOf(idx int32) int64
	// takeIndexEntries returns every entry as the index lists it; the
	// table is gone afterwards (only its length is left), so it comes
	// last.
	takeIndexEntries() []pack.IndexEntry
	// thinBases returns the REF_DELTA bases taken from the store that the
	// pack does not hold: what completing it appends.
	thinBases() []object.ID
}

// packDest keeps the stream itself in objects/pack/tmp_pack_*: the Reader's
// Tee writes it, workers only compute ids, and bases that fell out of the
// cache are read back from the file.
type packDest struct {
	entries keptEntries
	store   *loose.Store
	tx      *batch.Transaction
	fmt     object.Format
	file    batch.File     // the temporary pack, written
	in      batch.ReadFile // the same file, read
	rd      *pack.File

	mu  sync.Mutex // guards buf against readers flushing it
	buf *bufio.Writer
	n   int64 // bytes written
	err error // first write error
}

func newPackDest(store *loose.Store, tx *batch.Transaction, entries keptEntries, work *pack.Counts) (*packDest, error) {
	f, err := store.CreatePackTemp(tx, "pack")
	if err != nil {
		return nil, createErr(store, "pack", err)
	}
	in, err := store.FS().Open(f.Name())
	if err != nil {
		f.Close()
		store.FS().Remove(f.Name())
		return nil, createErr(store, "pack", err)
	}
	d := &packDest{entries: entries, store: store, tx: tx, fmt: store.Format(), file: f, in: in,
		buf: bufio.NewWriterSize(f, 1<<20)}
	d.rd = pack.NewFile(d, d, d.fmt)
	d.rd.External = d.readStore
	d.rd.Counts = work
	return d, nil
}

// Write is the Reader's Tee.
func (d *packDest) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.buf.Write(p)
	d.n += int64(n)
	d.err = packWriteErr("pack", loose.StageWrite, d.file.Name(), err)
	return n, d.err
}

// received returns the bytes of the pack received so far.
func (d *packDest) received() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}

// ReadAt reads the temporary pack, flushing what is still buffered.
func (d *packDest) ReadAt(p []byte, off int64) (int, error) {
	d.mu.Lock()
	if d.buf.Buffered() > 0 && d.err == nil {
		d.err = packWriteErr("pack", loose.StageWrite, d.file.Name(), d.buf.Flush())
	}
	err := d.err
	d.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return d.in.ReadAt(p, off)
}

// FindOffset locates an entry of the pack by id.
func (d *packDest) FindOffset(id object.ID) (int64, bool) {
	off, _, ok := d.entries.located(id)
	return off, ok
}

func (d *packDest) write(object.ID, object.Type, []byte) (bool, error) { return true, nil }

func (d *packDest) read(id object.ID) (object.Type, []byte, error) {
	if off, ok := d.FindOffset(id); ok {
		return d.rd.ObjectAt(off)
	}
	return d.readStore(id)
}

// readStore reads an object of the store: a thin pack's base.
func (d *packDest) readStore(id object.ID) (object.Type, []byte, error) {
	typ, data, err := d.store.Read(id)
	if err == nil {
		d.rd.Counts.Inflated(len(data))
	}
	return typ, data, err
}

// stream only hashes a big blob: its bytes reach the file through the Tee.
func (d *packDest) stream(size int64, r io.Reader) (object.ID, bool, error) {
	h := d.fmt.NewHasher()
	h.Begin(object.Blob, size)
	n, err := io.Copy(h, r)
	if err != nil {
		return object.ID{}, false, err
	}
	if n != size {
		return object.ID{}, false, errors.New("pack: blob shorter than declared")
	}
	id, err := h.Sum()
	return id, true, err
}

// discard removes the temporary pack after a failure.
// memory: a kept pack holds the bases of the whole pack in its cache.
func (d *packDest) memory() memoryPlan { return memoryPlan{laterAtOnce: true} }

// readsByID: a done object is in the kept pack only.
func (d *packDest) readsByID() bool { return false }

// objectAt reads back the object of a done entry from the kept pack.
func (d *packDest) objectAt(off int64) (fromPack, error) {
	typ, data, err := d.rd.ObjectAt(off)
	return fromPack{typ: typ, data: data, ok: true}, err
}

// wholeAt reads back the full object at off when afford agrees.
func (d *packDest) wholeAt(off int64, afford func(size, received int64) bool) (fromPack, error) {
	h, err := d.rd.HeaderAt(off)
	if err != nil || !afford(h.Size, d.received()) {
		return fromPack{}, err
	}
	typ, data, err := d.rd.ObjectAt(off)
	if err != nil {
		return fromPack{}, err
	}
	return fromPack{typ: typ, data: data, ok: true}, nil
}

// wait: a kept pack's entries are written as they come.
func (d *packDest) wait() {}

// end publishes the pack when the run went well (finish), else removes
// it; its objects are then not written.
func (d *packDest) end(res *Result, size int64, keep *Keep, err error) error {
	res.Kept = true
	if err == nil {
		var sum []byte
		sum, res.KeepPath, err = d.finish(size, keep)
		res.Pack = hex.EncodeToString(sum)
	} else {
		d.discard()
	}
	if err != nil {
		res.Written = 0 // they were in the pack, which is gone
	}
	return err
}

func (d *packDest) discard() {
	d.in.Close()
	d.file.Close()
	d.store.FS().Remove(d.file.Name())
}
