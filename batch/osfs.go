package batch

import (
	"io/fs"
	"os"
	"time"
)

// OS is the FS of the operating system.
var OS FS = osFS{}

type osFS struct{}

type osFile struct{ *os.File }

var _ File = osFile{}

func (osFS) Create(name string, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Open(name string) (ReadFile, error) { return os.Open(name) }

func (osFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

func (osFS) ReadDir(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func (osFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

func (osFS) Mkdir(name string, perm fs.FileMode) error { return os.Mkdir(name, perm) }

func (osFS) Chmod(name string, perm fs.FileMode) error { return os.Chmod(name, perm) }

func (osFS) Chtimes(name string, mtime time.Time) error { return os.Chtimes(name, mtime, mtime) }

func (osFS) Rename(oldname, newname string) error { return os.Rename(oldname, newname) }

func (osFS) Remove(name string) error { return os.Remove(name) }

func (osFS) Kind(name string) string { return fsKind(name) }

func (osFS) Flush(name string) error { return flushPath(name) }

func (osFS) FlushDir(name string) error { return flushDir(name) }

// Writeout is platform specific: see writeout in osfs_<os>.go.
func (f osFile) Writeout() error { return writeout(f.File) }

// Sync is os.File.Sync, which is F_FULLFSYNC on darwin.
func (f osFile) Sync() error { return f.File.Sync() }
