//go:build !windows

package batch

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// fdFile is a file being written through its raw descriptor. os.File would
// cost four fcntl calls and an epoll_ctl per file (it tries to make every
// new file pollable), which is most of an object's system calls.
type fdFile struct {
	fd   int
	name string
}

var _ File = (*fdFile)(nil)

func createFile(name string, perm fs.FileMode) (File, error) {
	for {
		fd, err := unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return &fdFile{fd: fd, name: name}, nil
	}
}

// reopenFile opens an existing file read-only: enough for
// sync_file_range and fsync on the systems of this file.
func reopenFile(name string) (File, error) {
	for {
		fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return &fdFile{fd: fd, name: name}, nil
	}
}

func (f *fdFile) Name() string { return f.name }

func (f *fdFile) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := unix.Write(f.fd, p[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, &os.PathError{Op: "write", Path: f.name, Err: err}
		}
		if m == 0 {
			return n, &os.PathError{Op: "write", Path: f.name, Err: unix.EIO}
		}
		n += m
	}
	return n, nil
}

func (f *fdFile) Writeout() error { return writeoutFd(f.fd, f.name) }

func (f *fdFile) StartWriteout() error { return startWriteoutFd(f.fd) }

func (f *fdFile) Sync() error {
	if err := fullSyncFd(f.fd); err != nil {
		return &os.PathError{Op: "fsync", Path: f.name, Err: err}
	}
	return nil
}

func (f *fdFile) DataSync() error {
	if err := dataSyncFd(f.fd); err != nil {
		return &os.PathError{Op: "fdatasync", Path: f.name, Err: err}
	}
	return nil
}

func (f *fdFile) Chmod(perm fs.FileMode) error {
	mode := uint32(perm.Perm())
	if perm&fs.ModeSetgid != 0 {
		mode |= unix.S_ISGID // Go's mode bit is not the system's
	}
	if err := unix.Fchmod(f.fd, mode); err != nil {
		return &os.PathError{Op: "chmod", Path: f.name, Err: err}
	}
	return nil
}

func (f *fdFile) Close() error {
	err := unix.Close(f.fd)
	f.fd = -1
	if err != nil {
		return &os.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}

// rename is renameat(2) itself: os.Rename stats the new name first.
func rename(oldname, newname string) error {
	if err := unix.Rename(oldname, newname); err != nil {
		return &os.LinkError{Op: "rename", Old: oldname, New: newname, Err: err}
	}
	return nil
}

// readFile reads a whole file with four system calls (open, fstat, read,
// close); os.ReadFile's os.File costs four fcntl and an epoll_ctl more.
func readFile(name string) ([]byte, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	buf := make([]byte, 0, st.Size+1) // +1: the read that sees the end is skipped when full
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) == st.Size {
			return buf, nil // as long as it was: no need to read the end
		}
	}
}
