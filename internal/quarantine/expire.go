package quarantine

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-durable/git-durable/batch"
)

// Expire removes from the quarantine of the git directory gitDir, on the
// filesystem fsys (nil: batch.OS), the folders of runs that began before
// cutoff, with all they hold, and returns how many it removed. A folder
// whose name is not a run's is left alone; so is anything that is a link.
func Expire(fsys batch.FS, gitDir string, cutoff time.Time) (int, error) {
	if fsys == nil {
		fsys = batch.OS
	}
	root := filepath.Join(gitDir, Name)
	st, err := fsys.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if !st.IsDir() {
		return 0, nil
	}
	names, err := fsys.ReadDir(root)
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, n := range names {
		stamp, _, ok := strings.Cut(n, "-")
		began, perr := time.Parse(stampLayout, stamp)
		if !ok || perr != nil || !began.Before(cutoff) {
			continue
		}
		if err := removeAll(fsys, filepath.Join(root, n)); err != nil {
			return removed, err
		}
		removed++
	}
	if removed > 0 {
		return removed, fsys.FlushDir(root)
	}
	return 0, nil
}

// removeAll removes path and, where it is a directory (not a link to
// one), everything under it.
func removeAll(fsys batch.FS, path string) error {
	st, err := fsys.Lstat(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		names, err := fsys.ReadDir(path)
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := removeAll(fsys, filepath.Join(path, n)); err != nil {
				return err
			}
		}
	}
	return fsys.Remove(path)
}

// Folders returns the names of the run folders in the quarantine of the
// git directory gitDir on fsys (nil: batch.OS), and the bytes their files
// hold.
func Folders(fsys batch.FS, gitDir string) (names []string, bytes int64, err error) {
	if fsys == nil {
		fsys = batch.OS
	}
	root := filepath.Join(gitDir, Name)
	all, err := fsys.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	for _, n := range all {
		if stamp, _, ok := strings.Cut(n, "-"); ok {
			if _, perr := time.Parse(stampLayout, stamp); perr == nil {
				names = append(names, n)
				bytes += sizeOf(fsys, filepath.Join(root, n))
			}
		}
	}
	return names, bytes, nil
}

// sizeOf is the bytes of the files at and under path.
func sizeOf(fsys batch.FS, path string) int64 {
	st, err := fsys.Lstat(path)
	if err != nil {
		return 0
	}
	if !st.IsDir() {
		return st.Size()
	}
	names, _ := fsys.ReadDir(path)
	var n int64
	for _, c := range names {
		n += sizeOf(fsys, filepath.Join(path, c))
	}
	return n
}
