package batch

import (
	"io/fs"
	"os"
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

// Writeout is NtFlushBuffersFileEx with FLUSH_FLAGS_FILE_DATA_ONLY.
func (f osFile) Writeout() error { return writeout(f.File) }

// Sync is FlushFileBuffers.
func (f osFile) Sync() error { return f.File.Sync() }

func rename(oldname, newname string) error { return os.Rename(oldname, newname) }

func readFile(name string) ([]byte, error) { return os.ReadFile(name) }
