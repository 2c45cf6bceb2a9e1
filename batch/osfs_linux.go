package batch

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// noWriteout is empty: this system has a writeout-only sync.
const noWriteout = ""

// writeoutFd is git's FSYNC_WRITEOUT_ONLY on Linux: sync_file_range over
// the whole file with WAIT_BEFORE|WRITE|WAIT_AFTER, so that it returns only
// when the data has reached the device (not its cache).
func writeoutFd(fd int, name string) error {
	const flags = unix.SYNC_FILE_RANGE_WAIT_BEFORE | unix.SYNC_FILE_RANGE_WRITE | unix.SYNC_FILE_RANGE_WAIT_AFTER
	err := unix.SyncFileRange(fd, 0, 0, flags)
	for err == unix.EINTR {
		err = unix.SyncFileRange(fd, 0, 0, flags)
	}
	if err == unix.ENOSYS || err == unix.EOPNOTSUPP {
		return fmt.Errorf("sync_file_range: %w: %w", err, errors.ErrUnsupported)
	}
	if err != nil {
		return &os.PathError{Op: "sync_file_range", Path: name, Err: err}
	}
	return nil
}

// startWriteoutFd starts the writeback of the whole file and returns
// without waiting for it (sync_file_range with SYNC_FILE_RANGE_WRITE).
func startWriteoutFd(fd int) error {
	err := unix.SyncFileRange(fd, 0, 0, unix.SYNC_FILE_RANGE_WRITE)
	for err == unix.EINTR {
		err = unix.SyncFileRange(fd, 0, 0, unix.SYNC_FILE_RANGE_WRITE)
	}
	return err
}

// fullSyncFd is fsync.
func fullSyncFd(fd int) error {
	err := unix.Fsync(fd)
	for err == unix.EINTR {
		err = unix.Fsync(fd)
	}
	return err
}

// dataSyncFd is fdatasync.
func dataSyncFd(fd int) error {
	err := unix.Fdatasync(fd)
	for err == unix.EINTR {
		err = unix.Fdatasync(fd)
	}
	return err
}

var fsNames = map[int64]string{
	0xEF53:     "ext4",
	0x58465342: "xfs",
	0x9123683E: "btrfs",
	0x01021994: "tmpfs",
	0x858458f6: "ramfs",
	0x794c7630: "overlay",
	0x6969:     "nfs",
	0x65735546: "fuse",
	0x2FC12FC1: "zfs",
	0xF2F52010: "f2fs",
}

// kindAt is the Kind of the filesystem name is on: by statfs's magic, and
// for the ext family by what the kernel says of it (extKind).
func kindAt(name string) Kind {
	var st unix.Statfs_t
	if err := unix.Statfs(name, &st); err != nil {
		return KindOf("")
	}
	kind, ok := fsNames[int64(st.Type)]
	if !ok {
		return KindOf(fmt.Sprintf("0x%x", st.Type))
	}
	if kind == "ext4" {
		return extKind(name).Kind()
	}
	return KindOf(kind)
}
