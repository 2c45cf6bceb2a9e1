package loose

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/quarantine"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// ErrNotFound means an object is in none of the store's sources.
var ErrNotFound = errors.New("loose: object not found")

// Options configures a Store. The zero value is a SHA-1 store writing at
// git's default loose compression (1) with the umask's permissions.
type Options struct {
	Format object.Format
	// Compression is the zlib level, -1 … 9 (core.looseCompression);
	// nil means 1.
	Compression *int
	// Shared is core.sharedRepository in git's encoding: 0 for umask,
	// 0660 for group, 0664 for everybody, -0xxx for an explicit mode.
	Shared int
	// Alternates are more object directories to read from, searched after
	// the store's own and those listed in objects/info/alternates.
	Alternates []string
	// Quarantine, when set, keeps what a write replaces: a broken loose
	// object, the file of a damaged pack that a pack of the same name
	// replaces. Without it, a damaged pack is never replaced.
	Quarantine *quarantine.Dir
}

// Store is an object directory with its alternates. It is safe for
// concurrent use.
type Store struct {
	fs    batch.FS
	dir   string
	opts  Options
	level int
	umask fs.FileMode

	primary *source
	altOnce sync.Once
	alts    []*source
	altErr  error

	// bases caches what reads from packs resolve on the way down delta
	// chains (the bases of a thin pack are often deep in one).
	bases *pack.BaseCache

	repaired atomic.Int64
	broken   sync.Map // ids whose loose copy Need found broken
	freshMu  sync.Mutex
	freshed  map[string]error // packs freshened in this run, and how that went
}

// packBaseCache bounds the objects a store keeps of what it resolved from
// its packs: about the depth of a chain of large trees.
const packBaseCache = 8 << 20

// Open returns the store of the objects directory dir.
func Open(fsys batch.FS, dir string, opts Options) *Store {
	if opts.Format == 0 {
		opts.Format = object.SHA1
	}
	level := 1
	if opts.Compression != nil {
		level = *opts.Compression
	}
	s := &Store{fs: fsys, dir: dir, opts: opts, level: level, umask: umask(), freshed: map[string]error{},
		bases: pack.NewBaseCache(packBaseCache)}
	s.primary = newSource(s, dir)
	return s
}

// Dir returns the objects directory.
func (s *Store) Dir() string { return s.dir }

// Format returns the store's object format.
func (s *Store) Format() object.Format { return s.opts.Format }

// FS returns the filesystem the store works on.
func (s *Store) FS() batch.FS { return s.fs }

// Repaired returns how many broken loose objects this store replaced.
func (s *Store) Repaired() int64 { return s.repaired.Load() }

// alternates returns the alternate sources, loading them once.
func (s *Store) alternates() ([]*source, error) {
	s.altOnce.Do(func() {
		dirs, err := alternateDirs(s.fs, s.dir, s.opts.Alternates)
		s.altErr = err
		for _, d := range dirs {
			s.alts = append(s.alts, newSource(s, d))
		}
	})
	return s.alts, s.altErr
}

// Has reports whether id is in any source, without checking it.
func (s *Store) Has(id object.ID) (bool, error) {
	if ok, err := s.primary.has(id); ok || err != nil {
		return ok, err
	}
	alts, err := s.alternates()
	if err != nil {
		return false, err
	}
	for _, a := range alts {
		if ok, err := a.has(id); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// Present reports whether git would find id, as its object info reads it
// (oid_object_info): a loose copy whose header inflates, or an entry in a
// pack git uses (its frame matches its index), here or in an alternate.
// An empty or garbled loose file is not a copy, nor is a pack cut short:
// a fetch must not tell an upstream that it has such an object.
func (s *Store) Present(id object.ID) (bool, error) {
	srcs := []*source{s.primary}
	alts, err := s.alternates()
	if err != nil {
		return false, err
	}
	for _, src := range append(srcs, alts...) {
		if ok, err := src.hasLoose(id); err != nil {
			return false, err
		} else if ok && src.headerType(id) != object.Bad {
			return true, nil
		}
		if ok, err := src.packs.has(id); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// Read returns the type and data of id from the first source that has a
// good copy. The data of a packed object may be shared with later reads:
// it must not be modified.
func (s *Store) Read(id object.ID) (object.Type, []byte, error) {
	t, data, err := s.primary.read(id)
	if err == nil || !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrCorrupt) {
		return t, data, err
	}
	first := err // a broken copy here is reported if no source has a good one
	alts, aerr := s.alternates()
	if aerr != nil {
		return object.Bad, nil, aerr
	}
	for _, a := range alts {
		t, data, err = a.read(id)
		if err == nil || !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrCorrupt) {
			return t, data, err
		}
		if errors.Is(first, ErrNotFound) {
			first = err
		}
	}
	return object.Bad, nil, first
}

// Need reports whether id must be written: it is absent, or the only copy
// is a broken loose object in this store (repair). A good copy is freshened
// as git does, so that a prune does not take it before the refs point at it.
func (s *Store) Need(id object.ID) (need bool, err error) {
	state, err := s.primary.check(id)
	if err != nil {
		return false, err
	}
	// As git does, an object whose copy cannot be freshened (another
	// user's file in a shared repository, a read-only alternate) is
	// written here anew, so that a prune does not take it.
	switch state {
	case good:
		return s.freshenLoose(s.primary, id) != nil, nil
	case packed:
		return s.freshenPack(s.primary, id) != nil, nil
	case broken:
		s.broken.Store(id, true)
		return true, nil
	}
	alts, err := s.alternates()
	if err != nil {
		return false, err
	}
	for _, a := range alts {
		st, err := a.check(id)
		if err != nil {
			return false, err
		}
		switch st {
		case good:
			return s.freshenLoose(a, id) != nil, nil
		case packed:
			return s.freshenPack(a, id) != nil, nil
		}
	}
	return true, nil
}

func (s *Store) freshenLoose(src *source, id object.ID) error {
	err := s.fs.Chtimes(src.path(id), time.Now())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func (s *Store) freshenPack(src *source, id object.ID) error {
	name := src.packOf(id)
	if name == "" {
		return nil
	}
	s.freshMu.Lock()
	defer s.freshMu.Unlock()
	if err, done := s.freshed[name]; done {
		return err // once per pack and run, and the same answer every time
	}
	err := s.fs.Chtimes(name, time.Now())
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	s.freshed[name] = err
	return err
}

func (s *Store) shardDir(dir string, id object.ID) string {
	d, _ := id.Shard()
	return filepath.Join(dir, d)
}
