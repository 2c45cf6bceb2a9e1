package batch

import (
	"os"

	"golang.org/x/sys/unix"
)

// writeout is git's FSYNC_WRITEOUT_ONLY on macOS: plain fsync, which sends
// the data to the drive without flushing the drive's cache.
func writeout(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fsync(int(fd)) }); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fsync", Path: f.Name(), Err: serr}
	}
	return nil
}

func fsKind(name string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(name, &st); err != nil {
		return ""
	}
	return unix.ByteSliceToString(st.Fstypename[:])
}
