package loose

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/git-durable/git-durable/object"
)

// Broken is a loose object of a store whose file does not hold it: empty,
// cut short, not inflating, or not hashing to its name, as a crash of a
// writer that did not sync leaves it.
type Broken struct {
	ID object.ID
	// Type is what the file's header still says, object.Bad where it says
	// nothing readable.
	Type object.Type
	// Packed reports that a pack of the store's own directory holds the
	// object: removing the loose file repairs it.
	Packed bool
	Err    error
}

// Scan checks every loose object of the store's own directory (not its
// alternates'), workers at a time: each file is read, inflated and hashed,
// as git fsck checks loose objects. It returns the broken ones, in the
// order of their ids, and how many objects it checked. Temporary files are
// not looked at.
func (s *Store) Scan(workers int) (broken []Broken, checked int, err error) {
	ids, err := s.LooseIDs()
	if err != nil {
		return nil, 0, err
	}
	errs := make([]error, len(ids))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range next {
				errs[i] = s.primary.verifyLoose(ids[i])
			}
		})
	}
	for i := range ids {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, id := range ids {
		switch err := errs[i]; {
		case err == nil, errors.Is(err, fs.ErrNotExist): // gone meanwhile
		case errors.Is(err, ErrCorrupt):
			b := Broken{ID: id, Type: s.headerType(id), Err: err}
			b.Packed, _ = s.primary.packs.has(id)
			broken = append(broken, b)
		default:
			return nil, 0, err
		}
	}
	return broken, len(ids), nil
}

// LooseIDs lists the loose objects of the store's own directory (not its
// alternates'), by the names of their files, one fan-out directory after
// another: nothing is read, and temporary files are not listed.
func (s *Store) LooseIDs() ([]object.ID, error) {
	var ids []object.ID
	for i := 0; i < 256; i++ {
		dir := filepath.Join(s.dir, fmt.Sprintf("%02x", i))
		names, err := s.fs.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if id, err := object.ParseID(dir[len(dir)-2:] + n); err == nil && id.Size() == s.opts.Format.Size() {
				ids = append(ids, id)
			}
		}
	}
	return ids, nil
}

// headerType returns the type the header of id's loose file names, where
// the start of the file still inflates to one.
func (s *Store) headerType(id object.ID) object.Type { return s.primary.headerType(id) }

// LooseType returns the type the header of id's loose file in the store's
// own directory names, where the start of the file still inflates to one;
// object.Bad otherwise (a broken file's type, where it still tells).
func (s *Store) LooseType(id object.ID) object.Type { return s.headerType(id) }

// headerType returns the type the header of id's loose file in src names,
// where the start of the file still inflates to one.
func (src *source) headerType(id object.ID) object.Type {
	raw, err := src.s.fs.ReadFile(src.path(id))
	if err != nil {
		return object.Bad
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw))
	if err != nil {
		return object.Bad
	}
	head := make([]byte, 32)
	n, _ := io.ReadFull(zr, head)
	t, _, _, err := ParseHeader(head[:n])
	if err != nil {
		return object.Bad
	}
	return t
}

// Drop removes the broken loose copy of id where a good copy is in a pack
// (Broken.Packed): git reads packs first and never notices the file, but
// git fsck fails on it. With a quarantine, the copy is set aside there.
func (s *Store) Drop(id object.ID) error {
	if q := s.opts.Quarantine; q != nil {
		if err := q.Retire(s.primary.path(id)); err != nil {
			return err
		}
		return q.Flush()
	}
	err := s.fs.Remove(s.primary.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
