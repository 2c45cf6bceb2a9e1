package loose

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/git-durable/git-durable/batch"
)

// PackFile is one temporary file of a pack being written, with the
// extension it will be published under.
type PackFile struct {
	Ext  string // "keep", "promisor", "pack", "rev" or "idx"
	File batch.File
}

// publishOrder is git's (index-pack's): the .keep first, so that the pack
// is protected as soon as it exists, then the .promisor, so that it is a
// promisor pack as soon as it exists; the .idx last, because it makes the
// pack visible.
var publishOrder = []string{"keep", "promisor", "pack", "rev", "idx"}

// CreatePackTemp creates objects/pack/tmp_<kind>_XXXXXX, and objects/pack
// itself if needed.
func (s *Store) CreatePackTemp(tx *batch.Transaction, kind string) (batch.File, error) {
	dir := filepath.Join(s.dir, "pack")
	if _, err := s.fs.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := tx.Mkdir(dir, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if s.opts.Shared != 0 {
			if err := s.fs.Chmod(dir, s.perm(0o777&^s.umask, true)); err != nil {
				return nil, err
			}
		}
	}
	return s.createNamed(dir, "tmp_"+kind+"_")
}

// PackPath returns objects/pack/pack-<checksum>.<ext>.
func (s *Store) PackPath(sum []byte, ext string) string {
	return filepath.Join(s.dir, "pack", "pack-"+hex.EncodeToString(sum)+"."+ext)
}

// PublishPack publishes the written temporary files of the pack whose
// checksum is sum through tx, in git's order (.keep, .promisor, .pack, .rev,
// .idx).
// When that pack exists already, nothing is replaced: the temporary files
// are removed and existed is true.
func (s *Store) PublishPack(tx *batch.Transaction, sum []byte, files []PackFile) (existed bool, err error) {
	_, perr := s.fs.Stat(s.PackPath(sum, "pack"))
	_, ierr := s.fs.Stat(s.PackPath(sum, "idx"))
	if perr == nil && ierr == nil {
		for _, f := range files {
			f.File.Close()
			s.fs.Remove(f.File.Name())
		}
		return true, nil
	}
	byExt := map[string]batch.File{}
	for _, f := range files {
		byExt[f.Ext] = f.File
	}
	for i, ext := range publishOrder {
		f, ok := byExt[ext]
		if !ok {
			continue
		}
		if s.opts.Shared != 0 {
			if err = f.Chmod(s.perm(0o444&^s.umask, false)); err != nil {
				f.Close()
				s.fs.Remove(f.Name())
			}
		}
		if err == nil {
			err = tx.Commit(f, s.PackPath(sum, ext)) // removes f on failure
		}
		if err != nil {
			for _, rest := range publishOrder[i+1:] {
				if g, ok := byExt[rest]; ok {
					g.Close()
					s.fs.Remove(g.Name())
				}
			}
			return false, err
		}
	}
	return false, nil
}
