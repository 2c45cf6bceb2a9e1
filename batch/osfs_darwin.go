package batch

import (
	"os"

	"golang.org/x/sys/unix"
)

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

// fullSyncFd is F_FULLFSYNC, falling back to fsync where the filesystem
// does not support it (as os.File.Sync does).
func fullSyncFd(fd int) error {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_FULLFSYNC, 0); err == nil {
		return nil
	}
	return unix.Fsync(fd)
}

func fsKind(name string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(name, &st); err != nil {
		return ""
	}
	return unix.ByteSliceToString(st.Fstypename[:])
}
