// Package nofollow opens the files of a repository that the runner and the
// helper read, append to or create themselves (the statistics file, the
// refs the runner tidies, the alternates list) without following a
// symbolic link: someone who can write in a repository must not make them
// read or write a file elsewhere (a root runner appending to /etc/shadow,
// reading a private file into its statistics).
package nofollow

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrLink says that a path is a symbolic link, which is not followed.
var ErrLink = errors.New("is a symbolic link")

// ReadFile reads the file path, which must not be a symbolic link.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// Append appends b to the file path, created with perm where missing; a
// symbolic link, or anything but a regular file, is refused.
func Append(path string, b []byte, perm os.FileMode) error {
	f, err := Open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Open opens path with flag (os.O_*) and perm as os.OpenFile does, but
// never through a symbolic link at path itself, and only a regular file.
func Open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := open(path, flag, perm)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file")}
	}
	return f, nil
}
