package unpack

import (
	"bytes"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// aside is where a delta's data goes while memory cannot hold it (park,
// putOffOne), and where it is read back from: the spill file of an
// exploded pack, or the kept pack itself, which holds every entry already.
type aside interface {
	// put sets data aside and returns where, for reread; -1 where nothing
	// needs writing (the kept pack holds it).
	put(data []byte) (int64, error)
	// reread reads back the delta data of j, set aside at j.spillAt.
	reread(j *job) ([]byte, error)
	// release ends the use of the place, once nothing can read it.
	release()
}

// spill keeps, for an exploded pack, the waiting deltas that went past
// parkMax: deflated again (a delta of gigabytes of zeros is a few KiB of
// pack, and must not become gigabytes of disk), as pack entries in a
// temporary file, objects/pack/tmp_spill_*, created on first use and
// removed when the run ends (git prune removes one a crash left).
type spill struct {
	store *loose.Store
	tx    *batch.Transaction
	fmt   object.Format
	work  *pack.Counts

	mu   sync.Mutex
	file batch.File     // written
	in   batch.ReadFile // the same file, read
	rd   *pack.File
	off  int64
	buf  bytes.Buffer
	zw   *zlib.Writer
}

func newSpill(store *loose.Store, tx *batch.Transaction, f object.Format, work *pack.Counts) *spill {
	return &spill{store: store, tx: tx, fmt: f, work: work}
}

// put writes data as an entry and returns its offset.
func (s *spill) put(data []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		if err := s.open(); err != nil {
			return 0, err
		}
	}
	s.buf.Reset()
	s.buf.Write(pack.AppendEntryHeader(nil, object.Blob, int64(len(data))))
	s.zw.Reset(&s.buf)
	s.zw.Write(data)
	if err := s.zw.Close(); err != nil {
		return 0, err
	}
	off := s.off
	n, err := s.file.Write(s.buf.Bytes())
	s.off += int64(n)
	return off, packWriteErr("spill", loose.StageWrite, s.file.Name(), err)
}

func (s *spill) open() error {
	f, err := s.store.CreatePackTemp(s.tx, "spill")
	if err != nil {
		return createErr(s.store, "spill", err)
	}
	in, err := s.store.FS().Open(f.Name())
	if err != nil {
		f.Close()
		s.store.FS().Remove(f.Name())
		return err
	}
	zw, err := zlib.NewWriterLevel(&s.buf, zlib.BestSpeed)
	if err != nil {
		in.Close()
		f.Close()
		s.store.FS().Remove(f.Name())
		return err
	}
	s.file, s.in, s.zw = f, in, zw
	s.rd = pack.NewFile(in, nil, s.fmt)
	s.rd.Counts = s.work
	return nil
}

// reread reads back the delta j dropped.
func (s *spill) reread(j *job) ([]byte, error) {
	s.mu.Lock()
	rd := s.rd
	s.mu.Unlock()
	_, data, err := rd.EntryAt(j.spillAt)
	return data, err
}

// release removes the file, once nothing can read it (aside).
func (s *spill) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return
	}
	s.in.Close()
	s.file.Close()
	s.store.FS().Remove(s.file.Name())
	s.file = nil
}
