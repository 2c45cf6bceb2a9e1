package batch

import (
	"io"
	"io/fs"
	"time"
)

// FS is the filesystem under an object store. Paths are native paths.
// Production code uses OS; tests substitute a recording or crash-simulating
// implementation.
type FS interface {
	// Create creates name exclusively (it must not exist) for writing,
	// with permission bits perm before the umask.
	Create(name string, perm fs.FileMode) (File, error)
	// Open opens name for reading.
	Open(name string) (ReadFile, error)
	// Reopen opens name, a file that exists and that another process may
	// have written, so that its data can be synced (Transaction.Adopt).
	// Nothing is written through it.
	Reopen(name string) (File, error)
	// ReadFile returns the contents of name.
	ReadFile(name string) ([]byte, error)
	// ReadDir returns the names in directory name, in no particular order.
	ReadDir(name string) ([]string, error)
	// Stat returns information about name.
	Stat(name string) (fs.FileInfo, error)
	// Lstat returns information about name itself: a symbolic link is not
	// followed.
	Lstat(name string) (fs.FileInfo, error)
	// Mkdir creates directory name.
	Mkdir(name string, perm fs.FileMode) error
	// Chmod changes the permission bits of name.
	Chmod(name string, perm fs.FileMode) error
	// Chtimes sets the modification time of name (git's freshening).
	Chtimes(name string, mtime time.Time) error
	// Rename atomically renames oldname to newname, replacing newname.
	Rename(oldname, newname string) error
	// Link gives the file oldname the new name newname as well (a hard
	// link); newname must not exist.
	Link(oldname, newname string) error
	// Remove removes name: a file, or an empty directory.
	Remove(name string) error
	// Flush makes the file name durable, and with it every metadata change
	// that a journaled filesystem committed before name's last change. It
	// is a full flush: device caches included.
	Flush(name string) error
	// FlushDir makes directory name's entries durable.
	FlushDir(name string) error
	// Kind describes the filesystem holding name.
	Kind(name string) Kind
}

// File is a file being written.
type File interface {
	io.Writer
	// Name returns the path the file was created with.
	Name() string
	// Writeout starts writeback of the file's data and waits for it,
	// without flushing device caches. It returns an error wrapping
	// errors.ErrUnsupported where the system has no such call; the data is
	// then not guaranteed to be anywhere but in memory.
	Writeout() error
	// Sync flushes the file's data and metadata to stable storage, device
	// caches included.
	Sync() error
	// DataSync is Sync without the metadata that reading the data back
	// does not need, such as timestamps (fdatasync; Sync where the system
	// has no such call). On a file already written out and committed it
	// is the device cache flush alone.
	DataSync() error
	// Chmod changes the file's permission bits.
	Chmod(perm fs.FileMode) error
	// Close closes the file. It does not sync.
	Close() error
}

// Starter is a File that can start the writeback of its data without
// waiting for it (Linux sync_file_range with SYNC_FILE_RANGE_WRITE alone).
// Starting promises nothing: only Writeout says the data reached the
// device. It lets the device work on a file while its writer goes on, so
// that the Writeout that Commit waits for finds the work mostly done.
type Starter interface {
	StartWriteout() error
}

// ReadFile is a file opened for reading.
type ReadFile interface {
	io.Reader
	io.ReaderAt
	io.Closer
	Stat() (fs.FileInfo, error)
}
