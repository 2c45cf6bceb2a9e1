//go:build !windows

package nofollow

import (
	"errors"
	"os"
	"syscall"
)

// open is os.OpenFile with O_NOFOLLOW (and O_NONBLOCK, so that a FIFO
// planted at path does not hang the open): a link at path fails with
// ELOOP, said as ErrLink.
func open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil && errors.Is(err, syscall.ELOOP) {
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrLink}
	}
	return f, err
}
