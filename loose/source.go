package loose

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/git-durable/git-durable/object"
)

// state is what a source holds of an object.
type state int

const (
	absent state = iota
	good         // a loose copy that inflates to its header and hashes to its name
	broken       // a loose copy that does not
	packed       // no loose copy, but a pack has it
)

// source is one object directory: its loose shards and its packs.
type source struct {
	s      *Store
	dir    string
	shards [256]shard
	packs  packList
}

// shard caches the listing of one fan-out directory, read once on first use.
type shard struct {
	mu     sync.Mutex
	listed bool
	exists bool
	names  map[string]struct{}
}

func newSource(s *Store, dir string) *source {
	src := &source{s: s, dir: dir}
	src.packs.dir = filepath.Join(dir, "pack")
	src.packs.store = s
	return src
}

func (src *source) path(id object.ID) string {
	d, rest := id.Shard()
	return filepath.Join(src.dir, d, rest)
}

// shard returns the listed shard of id; sh.mu is held on return.
func (src *source) shard(id object.ID) (*shard, error) {
	sh := &src.shards[id.Bytes()[0]]
	sh.mu.Lock()
	if sh.listed {
		return sh, nil
	}
	names, err := src.s.fs.ReadDir(src.s.shardDir(src.dir, id))
	switch {
	case err == nil:
		sh.exists = true
	case errors.Is(err, fs.ErrNotExist):
	default:
		sh.mu.Unlock()
		return nil, err
	}
	sh.names = make(map[string]struct{}, len(names))
	for _, n := range names {
		if !strings.HasPrefix(n, "tmp_") {
			sh.names[n] = struct{}{}
		}
	}
	sh.listed = true
	return sh, nil
}

// hasLoose reports whether the shard listing holds id.
func (src *source) hasLoose(id object.ID) (bool, error) {
	sh, err := src.shard(id)
	if err != nil {
		return false, err
	}
	defer sh.mu.Unlock()
	_, rest := id.Shard()
	_, ok := sh.names[rest]
	return ok, nil
}

// added records that id now exists as a loose object here.
func (src *source) added(id object.ID) {
	sh, err := src.shard(id)
	if err != nil {
		return
	}
	_, rest := id.Shard()
	sh.names[rest] = struct{}{}
	sh.exists = true
	sh.mu.Unlock()
}

func (src *source) has(id object.ID) (bool, error) {
	if ok, err := src.hasLoose(id); ok || err != nil {
		return ok, err
	}
	return src.packs.has(id)
}

// check says what the source holds of id, verifying a loose copy.
func (src *source) check(id object.ID) (state, error) {
	ok, err := src.hasLoose(id)
	if err != nil {
		return absent, err
	}
	if ok {
		err := src.verifyLoose(id)
		switch {
		case err == nil:
			return good, nil
		case errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, ErrCorrupt):
			return broken, nil
		default:
			return absent, err
		}
	}
	if ok, err := src.packs.has(id); ok || err != nil {
		return packed, err
	}
	return absent, nil
}

// verifyLoose checks the loose copy of id without inflating it into
// memory: the data goes through the hasher only.
func (src *source) verifyLoose(id object.ID) error {
	raw, err := src.s.fs.ReadFile(src.path(id))
	if err != nil {
		return err
	}
	if len(raw) == 0 {
		return &CorruptError{Path: src.path(id), Err: fmt.Errorf("%w: empty file", ErrCorrupt)}
	}
	h := src.s.opts.Format.NewHasher()
	_, err = inflate(bytes.NewReader(raw), func(t object.Type, size int64) io.Writer {
		h.Begin(t, size)
		return h
	})
	if err != nil {
		return &CorruptError{Path: src.path(id), Err: err}
	}
	if sum, err := h.Sum(); err != nil || sum != id {
		return &CorruptError{Path: src.path(id), Err: ErrHashMismatch}
	}
	return nil
}

// readLoose reads and verifies the loose copy of id.
func (src *source) readLoose(id object.ID) (object.Type, []byte, error) {
	raw, err := src.s.fs.ReadFile(src.path(id))
	if err != nil {
		return object.Bad, nil, err
	}
	t, data, err := Decode(raw)
	if err != nil {
		return object.Bad, nil, &CorruptError{Path: src.path(id), Err: err}
	}
	if sum, err := src.s.opts.Format.Sum(t, data); err != nil || sum != id {
		return object.Bad, nil, &CorruptError{Path: src.path(id), Err: ErrHashMismatch}
	}
	return t, data, nil
}

// read returns id from a good loose copy or a pack.
func (src *source) read(id object.ID) (object.Type, []byte, error) {
	t, data, lerr := src.readLoose(id)
	if lerr == nil {
		return t, data, nil
	}
	t, data, err := src.packs.read(id)
	if errors.Is(err, ErrNotFound) && !errors.Is(lerr, fs.ErrNotExist) {
		return object.Bad, nil, lerr // only a broken loose copy exists
	}
	return t, data, err
}

// packOf returns the pack file holding id, or "".
func (src *source) packOf(id object.ID) string { return src.packs.packOf(id) }
