package nofollow

import (
	"errors"
	"io/fs"
	"os"
)

// open is os.OpenFile of a path that is not a symbolic link (a reparse
// point) as Lstat sees it just before; Windows has no O_NOFOLLOW.
func open(path string, flag int, perm os.FileMode) (*os.File, error) {
	st, err := os.Lstat(path)
	if err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrLink}
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return os.OpenFile(path, flag, perm)
}
