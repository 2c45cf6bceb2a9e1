package mend

import (
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps the names a and b, two directories on one filesystem, in
// one step (renameat2's RENAME_EXCHANGE): there is no instant at which
// either name is missing, and after a crash each names one of the two.
func exchange(a, b string) error {
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}

// canExchange says whether exchange works here: it does.
func canExchange() error { return nil }
