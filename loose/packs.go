package loose

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// packList is the packs of one object directory, loaded on first use and
// rescanned when an object is missed (a concurrent repack may have moved
// loose objects into a new pack).
type packList struct {
	dir   string
	store *Store

	mu     sync.Mutex
	loaded bool
	packs  []*packFile
	byName map[string]bool
}

type packFile struct {
	name string // path of the .pack
	idx  *pack.Index

	mu   sync.Mutex
	file batch.ReadFile
	rd   *pack.File
	// frame is what opening the pack found of its frame: unchecked, or
	// whether git uses the pack at all (usable).
	frame atomic.Int32
}

// The states of packFile.frame.
const (
	frameUnchecked = iota
	frameSound
	frameRefused
)

// load reads the indexes of packs not seen yet; l.mu must be held. It
// reports whether a new pack appeared.
func (l *packList) load() (bool, error) {
	names, err := l.store.fs.ReadDir(l.dir)
	if errors.Is(err, fs.ErrNotExist) {
		l.loaded = true
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if l.byName == nil {
		l.byName = map[string]bool{}
	}
	grew := false
	for _, n := range names {
		if !strings.HasPrefix(n, "pack-") || !strings.HasSuffix(n, ".idx") || l.byName[n] {
			continue
		}
		data, err := l.store.fs.ReadFile(filepath.Join(l.dir, n))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed by a concurrent repack
			}
			return false, err
		}
		idx, err := pack.ParseIndex(data, l.store.opts.Format)
		if err != nil {
			continue // an index being written, or a broken one: git skips it too
		}
		l.byName[n] = true
		l.packs = append(l.packs, &packFile{name: filepath.Join(l.dir, strings.TrimSuffix(n, ".idx")+".pack"), idx: idx})
		grew = true
	}
	l.loaded = true
	return grew, nil
}

// find returns the pack holding id. With rescan, a miss looks for packs
// that appeared since the last scan; existence checks do without (a stale
// "absent" only costs a redundant write), reads use it.
func (l *packList) find(id object.ID, rescan bool) (*packFile, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.loaded {
		if _, err := l.load(); err != nil {
			return nil, err
		}
	}
	for {
		for _, p := range l.packs {
			if _, ok := p.idx.Find(id); ok && l.usable(p) {
				return p, nil
			}
		}
		if !rescan {
			return nil, nil
		}
		rescan = false
		if grew, err := l.load(); err != nil || !grew {
			return nil, err
		}
	}
}

func (l *packList) has(id object.ID) (bool, error) {
	p, err := l.find(id, false)
	return p != nil, err
}

func (l *packList) packOf(id object.ID) string {
	if p, _ := l.find(id, false); p != nil {
		return p.name
	}
	return ""
}

// read returns id from the first pack whose copy reads; where one fails
// (a damaged pack), the next that holds the object, as git does.
func (l *packList) read(id object.ID) (object.Type, []byte, error) {
	p, err := l.find(id, true)
	if err != nil {
		return object.Bad, nil, err
	}
	if p == nil {
		return object.Bad, nil, ErrNotFound
	}
	typ, data, first := l.readFrom(p, id)
	if first == nil {
		return typ, data, nil
	}
	l.mu.Lock()
	others := make([]*packFile, 0, len(l.packs))
	for _, o := range l.packs {
		if _, ok := o.idx.Find(id); ok && o != p && l.usable(o) {
			others = append(others, o)
		}
	}
	l.mu.Unlock()
	for _, o := range others {
		if typ, data, err := l.readFrom(o, id); err == nil {
			return typ, data, nil
		}
	}
	return object.Bad, nil, first
}

// readFrom reads id from the pack p, opening it on first use.
func (l *packList) readFrom(p *packFile, id object.ID) (object.Type, []byte, error) {
	rd, err := l.open(p)
	if err != nil {
		return object.Bad, nil, err
	}
	return rd.Object(id) // a pack.File reads at offsets: no lock needed
}

// open opens the pack p on first use.
func (l *packList) open(p *packFile) (*pack.File, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rd == nil {
		f, err := l.store.fs.Open(p.name)
		if err != nil {
			return nil, err
		}
		p.file, p.rd = f, pack.NewFile(f, p.idx, l.store.opts.Format)
		p.rd.Cache = l.store.bases
	}
	return p.rd, nil
}

// usable reports whether git uses the pack p, as it decides once it opens
// one (packfile.c, open_packed_git_1): its header counts as many objects
// as its index, and its trailer is the checksum the index records. A pack
// cut short, or another pack's under its index's name, git refuses whole
// ("packfile … does not match index"): every object of it is then absent,
// for existence checks and reads alike, so that a fetch writes them again
// as git's would. A pack that cannot be opened is left to the read that
// fails on it.
func (l *packList) usable(p *packFile) bool {
	switch p.frame.Load() {
	case frameSound:
		return true
	case frameRefused:
		return false
	}
	if _, err := l.open(p); err != nil {
		return true
	}
	st, err := p.file.Stat()
	if err != nil {
		return true
	}
	sound := !errors.Is(pack.CheckFrame(p.file, st.Size(), p.idx, l.store.opts.Format), pack.ErrFrame)
	if sound {
		p.frame.Store(frameSound)
	} else {
		p.frame.Store(frameRefused)
	}
	return sound
}

// Close releases the pack files a store opened.
func (s *Store) Close() error {
	var first error
	srcs := append([]*source{s.primary}, s.alts...)
	for _, src := range srcs {
		src.packs.mu.Lock()
		for _, p := range src.packs.packs {
			p.mu.Lock()
			if p.file != nil {
				if err := p.file.Close(); err != nil && first == nil {
					first = err
				}
				p.file, p.rd = nil, nil
			}
			p.mu.Unlock()
		}
		src.packs.mu.Unlock()
	}
	return first
}
