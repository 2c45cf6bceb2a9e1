//go:build !linux && !darwin && !windows

package batch

import (
	"errors"

	"golang.org/x/sys/unix"
)

// writeoutFd is not available here; callers fall back to full flushes.
func writeoutFd(fd int, name string) error { return errors.ErrUnsupported }

func startWriteoutFd(fd int) error { return nil }

func fullSyncFd(fd int) error { return unix.Fsync(fd) }

func fsKind(name string) string { return "" }
