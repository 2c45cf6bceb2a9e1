package batch

import (
	"os"

	"golang.org/x/sys/unix"
)

// noWriteout is empty: this system has a writeout-only sync.
const noWriteout = ""

// writeoutFd is git's FSYNC_WRITEOUT_ONLY on macOS: plain fsync, which
// sends the data to the drive without flushing the drive's cache.
func writeoutFd(fd int, name string) error {
	if err := unix.Fsync(fd); err != nil {
		return &os.PathError{Op: "fsync", Path: name, Err: err}
	}
	return nil
}

// startWriteoutFd does nothing: macOS has no call that starts writeback
// without waiting for it.
func startWriteoutFd(fd int) error { return nil }

// fullSyncFd is F_FULLFSYNC, which flushes the drive's cache too. Only
// where the filesystem or device does not support it does a plain fsync
// stand in (as os.File.Sync does on ENOTSUP); any other error, an I/O
// error first, is returned (fullSync).
func fullSyncFd(fd int) error {
	return fullSync(func() error {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_FULLFSYNC, 0)
		return err
	}, func() error { return unix.Fsync(fd) })
}

// dataSyncFd is fullSyncFd: macOS has no fdatasync that flushes the
// drive's cache.
func dataSyncFd(fd int) error { return fullSyncFd(fd) }

// kindAt is the Kind of the filesystem name is on, by its name.
func kindAt(name string) Kind { return KindOf(fsName(name)) }

// fsName is the name of the filesystem name is on; "" when unknown.
func fsName(name string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(name, &st); err != nil {
		return ""
	}
	return unix.ByteSliceToString(st.Fstypename[:])
}
