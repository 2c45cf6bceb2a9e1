//go:build !linux && !darwin && !windows

package batch

import (
	"errors"
	"runtime"

	"golang.org/x/sys/unix"
)

// noWriteout says why batch never runs here: FreeBSD, OpenBSD, NetBSD,
// illumos and the other systems of this file have no call that writes a
// file's data out without flushing the device (Linux's sync_file_range),
// and the scheme needs one before every rename. The fallback, a full
// fsync of every object and of every directory that received a name,
// runs on every filesystem, by design.
var noWriteout = runtime.GOOS + " has no writeout-only sync: every object and directory gets a full fsync"

// writeoutFd is not available here; callers fall back to full flushes.
func writeoutFd(fd int, name string) error { return errors.ErrUnsupported }

func startWriteoutFd(fd int) error { return nil }

func fullSyncFd(fd int) error { return unix.Fsync(fd) }

func dataSyncFd(fd int) error { return unix.Fsync(fd) }

// kindAt: nothing is known of the filesystem here.
func kindAt(name string) Kind { return KindOf("") }
