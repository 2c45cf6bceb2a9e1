package loose

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/object"
)

// streamAbove is the object size above which Write deflates straight into
// the file instead of into a buffer first.
const streamAbove = 1 << 20

// encoder is a reusable zlib writer with its output buffer.
type encoder struct {
	zw  *zlib.Writer
	buf bytes.Buffer
}

var encoders sync.Map // level → *sync.Pool of *encoder

func (s *Store) encoder() (*encoder, *sync.Pool, error) {
	p, _ := encoders.LoadOrStore(s.level, &sync.Pool{})
	pool := p.(*sync.Pool)
	if e, ok := pool.Get().(*encoder); ok {
		e.buf.Reset()
		e.zw.Reset(&e.buf)
		return e, pool, nil
	}
	e := &encoder{}
	zw, err := zlib.NewWriterLevel(&e.buf, s.level)
	if err != nil {
		return nil, nil, fmt.Errorf("bad zlib compression level %d", s.level)
	}
	e.zw = zw
	return e, pool, nil
}

// Write writes the object id (type t, data) into the store's own directory
// and publishes it through tx. The caller computed id from the data.
func (s *Store) Write(tx *batch.Transaction, id object.ID, t object.Type, data []byte) error {
	w, err := s.Prepare(tx, id, t, data)
	if err != nil {
		return err
	}
	return s.Publish(tx, w)
}

// Written is an object written to its temporary file, not yet published.
type Written struct {
	f  batch.File
	id object.ID
}

// Prepare writes the object id to a temporary file in its fan-out
// directory and tells tx it is written (which starts its writeout where
// the transaction will wait for one); Publish (possibly on another
// goroutine) makes it an object. Until then it is not in the store.
func (s *Store) Prepare(tx *batch.Transaction, id object.ID, t object.Type, data []byte) (*Written, error) {
	dir := s.shardDir(s.dir, id)
	if err := s.ensureShard(tx, id); err != nil {
		return nil, err
	}
	f, err := s.createTemp(dir)
	if err != nil {
		return nil, err
	}
	if err := s.encode(f, t, data); err != nil {
		f.Close()
		s.fs.Remove(f.Name())
		return nil, err
	}
	tx.Written(f)
	return &Written{f: f, id: id}, nil
}

// ID returns the id of the prepared object.
func (w *Written) ID() object.ID { return w.id }

// Publish syncs, closes and renames a prepared object through tx.
func (s *Store) Publish(tx *batch.Transaction, w *Written) error { return s.publish(tx, w.f, w.id) }

// encode writes zlib(header + data) to f.
func (s *Store) encode(f batch.File, t object.Type, data []byte) error {
	e, pool, err := s.encoder()
	if err != nil {
		return err
	}
	defer pool.Put(e)
	var out *bufio.Writer
	if len(data) > streamAbove {
		out = bufio.NewWriterSize(tmpWriter{f, f.Name()}, 256<<10)
		e.zw.Reset(out)
	}
	var hdr [32]byte
	e.zw.Write(object.Header(hdr[:0], t, int64(len(data))))
	e.zw.Write(data)
	if err := e.zw.Close(); err != nil {
		return err
	}
	if out != nil {
		return out.Flush()
	}
	_, err = tmpWriter{f, f.Name()}.Write(e.buf.Bytes())
	return err
}

// publish sets shared permissions on the written temporary file f and hands
// it to tx to become object id.
func (s *Store) publish(tx *batch.Transaction, f batch.File, id object.ID) error {
	if s.opts.Shared != 0 {
		if err := f.Chmod(s.perm(0o444&^s.umask, false)); err != nil {
			f.Close()
			s.fs.Remove(f.Name())
			return err
		}
	}
	if _, broken := s.broken.Load(id); broken && s.opts.Quarantine != nil {
		// The broken copy is kept aside before the good one replaces it.
		if err := s.opts.Quarantine.Keep(s.primary.path(id)); err != nil {
			f.Close()
			s.fs.Remove(f.Name())
			return &WriteError{Stage: StagePublish, Path: f.Name(), Err: err}
		}
	}
	if err := tx.Commit(f, s.primary.path(id)); err != nil {
		return &WriteError{Stage: StagePublish, Path: f.Name(), Err: err}
	}
	s.primary.added(id)
	if _, ok := s.broken.LoadAndDelete(id); ok {
		s.repaired.Add(1)
	}
	return nil
}

// ensureShard creates the fan-out directory of id unless it exists.
func (s *Store) ensureShard(tx *batch.Transaction, id object.ID) error {
	sh, err := s.primary.shard(id)
	if err != nil {
		return err
	}
	defer sh.mu.Unlock()
	if sh.exists {
		return nil
	}
	dir := s.shardDir(s.dir, id)
	err = tx.Mkdir(dir, 0o777)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return &WriteError{Stage: StageCreate, Path: dir, Err: err}
	}
	if err == nil && s.opts.Shared != 0 {
		if err := s.fs.Chmod(dir, s.perm(0o777&^s.umask, true)); err != nil {
			return err
		}
	}
	sh.exists = true
	return nil
}

const tmpLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// createTemp creates dir/tmp_obj_XXXXXX exclusively, mode 0444.
func (s *Store) createTemp(dir string) (batch.File, error) {
	f, err := s.createNamed(dir, "tmp_obj_")
	if err != nil {
		return nil, &WriteError{Stage: StageCreate, Path: dir, Err: err}
	}
	return f, nil
}

// createNamed creates dir/<prefix>XXXXXX exclusively, mode 0444.
func (s *Store) createNamed(dir, prefix string) (batch.File, error) {
	name := make([]byte, len(prefix)+6)
	copy(name, prefix)
	for tries := 0; ; tries++ {
		for i := len(prefix); i < len(name); i++ {
			name[i] = tmpLetters[rand.IntN(len(tmpLetters))]
		}
		f, err := s.fs.Create(filepath.Join(dir, string(name)), 0o444)
		if err == nil || !errors.Is(err, fs.ErrExist) || tries == 100 {
			return f, err
		}
	}
}

// perm is git's calc_shared_perm for a file (or directory) whose mode after
// the umask is mode.
func (s *Store) perm(mode fs.FileMode, dir bool) fs.FileMode {
	shared := s.opts.Shared
	tweak := fs.FileMode(shared)
	if shared < 0 {
		tweak = fs.FileMode(-shared)
	}
	if mode&0o200 == 0 {
		tweak &^= 0o222
	}
	if dir {
		tweak |= (tweak & 0o444) >> 2
	}
	if shared < 0 {
		mode = mode&^0o777 | tweak
	} else {
		mode |= tweak
	}
	if dir && mode&0o060 != 0 {
		mode |= fs.ModeSetgid
	}
	return mode
}
