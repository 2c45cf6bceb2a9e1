package batch

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// osFile is a file being written, through os.File.
type osFile struct{ *os.File }

var _ File = osFile{}

func createFile(name string, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// reopenFile opens an existing file for writing, which FlushFileBuffers
// needs; nothing is written.
func reopenFile(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// Writeout is NtFlushBuffersFileEx with FLUSH_FLAGS_FILE_DATA_ONLY.
func (f osFile) Writeout() error { return writeout(f.File) }

// Sync is FlushFileBuffers.
func (f osFile) Sync() error { return f.File.Sync() }

// DataSync is FlushFileBuffers too: Windows has no data-only full flush.
func (f osFile) DataSync() error { return f.File.Sync() }

// rename is os.Rename (MoveFileEx, replacing newname), which may replace a
// read-only file: a repair renames a good copy onto a broken object, and
// objects are read-only (renameOverReadOnly).
func rename(oldname, newname string) error {
	p, err := windows.UTF16PtrFromString(newname)
	if err != nil {
		return os.Rename(oldname, newname)
	}
	return renameOverReadOnly(
		func() error { return os.Rename(oldname, newname) },
		func(err error) bool { return errors.Is(err, windows.ERROR_ACCESS_DENIED) },
		func() (uint32, error) { return windows.GetFileAttributes(p) },
		func(a uint32) error { return windows.SetFileAttributes(p, a) })
}

func readFile(name string) ([]byte, error) { return os.ReadFile(name) }
