package unpack

import (
	"errors"
	"io"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// The reader side of the pipeline: entries come off the pack stream in
// order, full objects and deltas whose base is done become jobs, gathered
// and dispatched to the workers in batches; other deltas wait.

// read is the reader loop. It returns the trailer's error, which git
// reports only after the other end-of-pack checks; every other error is
// recorded with fail.
func (u *resolver) read(r *pack.Reader) (trailerErr error) {
	hdr, err := r.Header()
	if err != nil {
		u.fail(err)
		return nil
	}
	for i := 0; ; i++ {
		if err := u.ctx.Err(); err != nil {
			u.fail(err)
			return nil
		}
		u.holdBack()
		if u.tally.first() != nil {
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

func (u *resolver) addEntry(off int64) int32 {
	u.mu.Lock()
	defer u.mu.Unlock()
	k := u.entries.add(off)
	u.reserved()
	return k
}

// streamAbove: non-delta blobs larger than this are streamed whatever
// core.bigFileThreshold says (git holds them in memory up to 512 MiB). The
// loose object written is the same; memory stays near 64 MiB plus the
// largest delta result instead of twice the largest blob.
const streamAbove = 16 << 20

// entry reads one entry's data and hands it on.
func (u *resolver) entry(r *pack.Reader, idx int32, e pack.Entry) error {
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
		u.entries.at(idx).crc = crc
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
func (u *resolver) delta(j *job, baseOff int64, baseID object.ID) {
	u.mu.Lock()
	u.deltas++
	u.entries.at(j.idx).base = baseOutside
	base := int32(-1)
	if baseOff >= 0 {
		k, ok := u.entries.atOffset(baseOff)
		if !ok {
			u.orphans++ // git queues it under an offset no entry has
			u.mu.Unlock()
			return
		}
		base = k
	} else if k, ok := u.entries.find(baseID); ok {
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
	if k, ok := u.entries.find(baseID); ok {
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
// for k, or, when k was put off to the second pass, is put off with it.
// u.mu must be held.
func (u *resolver) toEntry(j *job, k int32) (ready bool) {
	j.base = k
	u.entries.at(j.idx).base = k
	if u.entries.at(k).done {
		return true
	}
	if u.entries.at(k).later {
		u.putOff(j)
		return false
	}
	u.waiting[k] = append(u.waiting[k], j)
	u.park(j)
	u.countWait(j, k)
	return false
}

// submit marks a job's entry in flight and hands the job to the driver.
func (u *resolver) submit(j *job) {
	u.mu.Lock()
	u.entries.at(j.idx).flight = true
	u.mu.Unlock()
	u.drv.gather(j)
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
