package batch

import (
	"io/fs"
	"os"
	"time"
)

// OS is the FS of the operating system.
var OS FS = osFS{}

type osFS struct{}

func (osFS) Create(name string, perm fs.FileMode) (File, error) { return createFile(name, perm) }

func (osFS) Open(name string) (ReadFile, error) { return os.Open(name) }

func (osFS) Reopen(name string) (File, error) { return reopenFile(name) }

func (osFS) ReadFile(name string) ([]byte, error) { return readFile(name) }

func (osFS) ReadDir(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

func (osFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

func (osFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

func (osFS) Link(oldname, newname string) error { return os.Link(oldname, newname) }

func (osFS) Mkdir(name string, perm fs.FileMode) error { return os.Mkdir(name, perm) }

func (osFS) Chmod(name string, perm fs.FileMode) error { return os.Chmod(name, perm) }

func (osFS) Chtimes(name string, mtime time.Time) error { return os.Chtimes(name, mtime, mtime) }

func (osFS) Rename(oldname, newname string) error { return rename(oldname, newname) }

func (osFS) Remove(name string) error { return os.Remove(name) }

// Kind is the Kind of the filesystem name is on (kindAt), except on a
// system without a writeout-only sync, where no filesystem makes the batch
// scheme sound.
func (osFS) Kind(name string) Kind {
	if noWriteout != "" {
		return Kind{Name: kindAt(name).Name, Reason: noWriteout}
	}
	return kindAt(name)
}

func (osFS) Flush(name string) error { return flushPath(name) }

func (osFS) FlushDir(name string) error { return flushDir(name) }
