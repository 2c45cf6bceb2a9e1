package loose

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/git-durable/git-durable/batch"
)

// PackFile is one temporary file of a pack being written, with the
// extension it will be published under.
type PackFile struct {
	Ext  string // "keep", "promisor", "mtimes", "pack", "rev", "idx" or "bitmap"
	File batch.File
}

// publishOrder is git's (index-pack's, pack-objects'): the .keep first, so
// that the pack is protected as soon as it exists, then the .promisor, so
// that it is a promisor pack as soon as it exists, and a cruft pack's
// .mtimes, so that it is one; the .idx makes the pack visible; a .bitmap
// comes after it, as pack-objects writes one, since git reads a pack
// without one.
var publishOrder = []string{"keep", "promisor", "mtimes", "pack", "rev", "idx", "bitmap"}

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
// When that pack exists already, a file the same byte for byte as the one
// there is removed (existed is true where every file is), and one that
// differs replaces it (publishOver).
func (s *Store) PublishPack(tx *batch.Transaction, sum []byte, files []PackFile) (existed bool, err error) {
	_, perr := s.fs.Stat(s.PackPath(sum, "pack"))
	_, ierr := s.fs.Stat(s.PackPath(sum, "idx"))
	if perr == nil && ierr == nil {
		if files, err = s.over(sum, files); err != nil || len(files) == 0 {
			return err == nil, err
		}
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

// over sorts the files of a pack published where a pack of the same name
// is (sum): each the same as the file there, or without a file there, is
// removed, and the rest —
// what differs from a damaged pack (cut short, an index whose bytes are
// bad) — returned, to replace the files there once the quarantine keeps
// them (Options.Quarantine). Without one, a file that differs fails the
// publication as git's check of an existing pack does ("files … differ in
// contents").
func (s *Store) over(sum []byte, files []PackFile) ([]PackFile, error) {
	var differ []PackFile
	var err error
	for _, f := range files {
		to := s.PackPath(sum, f.Ext)
		same := false
		if err == nil {
			same, err = sameFile(s.fs, f.File.Name(), to)
		}
		if _, serr := s.fs.Lstat(to); errors.Is(serr, fs.ErrNotExist) {
			same = true // nothing there to put right: the pack is as it was
		}
		if same || err != nil {
			f.File.Close()
			s.fs.Remove(f.File.Name())
			continue
		}
		if s.opts.Quarantine == nil {
			err = fmt.Errorf("files '%s' and '%s' differ in contents", f.File.Name(), to)
			f.File.Close()
			s.fs.Remove(f.File.Name())
			continue
		}
		if err = s.opts.Quarantine.Keep(to); err != nil {
			f.File.Close()
			s.fs.Remove(f.File.Name())
			continue
		}
		differ = append(differ, f)
	}
	if err != nil {
		for _, f := range differ {
			f.File.Close()
			s.fs.Remove(f.File.Name())
		}
		return nil, err
	}
	return differ, nil
}

// sameFile reports whether the files a and b hold the same bytes; b
// missing is a difference.
func sameFile(fsys batch.FS, a, b string) (bool, error) {
	fb, err := fsys.Open(b)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer fb.Close()
	fa, err := fsys.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	sa, err := fa.Stat()
	if err != nil {
		return false, err
	}
	sb, err := fb.Stat()
	if err != nil || sa.Size() != sb.Size() {
		return false, err
	}
	bufA, bufB := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); off < sa.Size(); off += int64(len(bufA)) {
		n := int(min(int64(len(bufA)), sa.Size()-off))
		if _, err := fa.ReadAt(bufA[:n], off); err != nil {
			return false, err
		}
		if _, err := fb.ReadAt(bufB[:n], off); err != nil {
			return false, err
		}
		if !bytes.Equal(bufA[:n], bufB[:n]) {
			return false, nil
		}
	}
	return true, nil
}
