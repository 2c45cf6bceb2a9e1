// Package memfstest is an in-memory batch.FS that records every operation as an
// event, for crash-consistency checks, and can fail any chosen operation.
package memfstest

import (
	"io/fs"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/git-durable/git-durable/batch"
)

// FS is the in-memory filesystem. Its zero value is not usable; call New.
type FS struct {
	mu     sync.Mutex
	names  map[string]int // file path → inode
	dirs   map[string]bool
	inodes map[int]*inode
	next   int
	events []Event
	ops    int // mutating operations attempted, for fault injection
	// Fail, when set, is asked before every mutating operation (index
	// counted from 0 over the run) and fails it with the returned error.
	Fail func(index int, ev Event) error
	// FSKind is what Kind reports; an ext4 (journaled, with barriers, no
	// fast commits) unless set.
	FSKind batch.Kind
}

type inode struct {
	data  []byte
	mode  fs.FileMode
	mtime time.Time
}

// New returns an empty filesystem holding the given directories.
func New(dirs ...string) *FS {
	m := &FS{names: map[string]int{}, dirs: map[string]bool{}, inodes: map[int]*inode{}}
	for _, d := range dirs {
		for d != "." && d != "/" && d != "" {
			m.dirs[d] = true
			d = filepath.Dir(d)
		}
	}
	return m
}

var _ batch.FS = (*FS)(nil)

func pathErr(op, name string, err error) error { return &fs.PathError{Op: op, Path: name, Err: err} }

// Create implements batch.FS.
func (m *FS) Create(name string, perm fs.FileMode) (batch.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirs[filepath.Dir(name)] {
		return nil, pathErr("open", name, fs.ErrNotExist)
	}
	if _, ok := m.names[name]; ok || m.dirs[name] {
		return nil, pathErr("open", name, fs.ErrExist)
	}
	m.next++
	if err := m.record(Event{Op: OpCreate, Path: name, Inode: m.next}); err != nil {
		return nil, pathErr("open", name, err)
	}
	m.inodes[m.next] = &inode{mode: perm, mtime: time.Now()}
	m.names[name] = m.next
	return &file{m: m, name: name, ino: m.next}, nil
}

// Open implements batch.FS.
// The file read is the inode as it is at each read, as an open file is:
// writes made after the open are seen.
func (m *FS) Open(name string) (batch.ReadFile, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ino, ok := m.names[name]
	if !ok {
		return nil, pathErr("open", name, fs.ErrNotExist)
	}
	return &readFile{m: m, ino: ino, name: name}, nil
}

// Reopen implements batch.FS: the file's inode as it is, for syncs.
func (m *FS) Reopen(name string) (batch.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ino, ok := m.names[name]
	if !ok {
		return nil, pathErr("open", name, fs.ErrNotExist)
	}
	return &file{m: m, name: name, ino: ino}, nil
}

// Mkdir implements batch.FS.
func (m *FS) Mkdir(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirs[name] {
		return pathErr("mkdir", name, fs.ErrExist)
	}
	if !m.dirs[filepath.Dir(name)] {
		return pathErr("mkdir", name, fs.ErrNotExist)
	}
	if err := m.record(Event{Op: OpMkdir, Path: name}); err != nil {
		return pathErr("mkdir", name, err)
	}
	m.dirs[name] = true
	return nil
}

// Chmod implements batch.FS.
func (m *FS) Chmod(name string, perm fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ino, ok := m.names[name]
	if !ok {
		return pathErr("chmod", name, fs.ErrNotExist)
	}
	if err := m.record(Event{Op: OpChmod, Path: name, Inode: ino}); err != nil {
		return pathErr("chmod", name, err)
	}
	m.inodes[ino].mode = perm
	return nil
}

// Chtimes implements batch.FS; it is not a durability event.
func (m *FS) Chtimes(name string, mtime time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ino, ok := m.names[name]
	if !ok {
		return pathErr("chtimes", name, fs.ErrNotExist)
	}
	m.inodes[ino].mtime = mtime
	return nil
}

// Rename implements batch.FS.
func (m *FS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ino, ok := m.names[oldname]
	if !ok {
		return pathErr("rename", oldname, fs.ErrNotExist)
	}
	if !m.dirs[filepath.Dir(newname)] {
		return pathErr("rename", newname, fs.ErrNotExist)
	}
	if err := m.record(Event{Op: OpRename, Path: oldname, Path2: newname, Inode: ino}); err != nil {
		return pathErr("rename", oldname, err)
	}
	delete(m.names, oldname)
	m.names[newname] = ino
	return nil
}

// Link implements batch.FS.
func (m *FS) Link(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ino, ok := m.names[oldname]
	if !ok {
		return pathErr("link", oldname, fs.ErrNotExist)
	}
	if !m.dirs[filepath.Dir(newname)] {
		return pathErr("link", newname, fs.ErrNotExist)
	}
	if _, ok := m.names[newname]; ok || m.dirs[newname] {
		return pathErr("link", newname, fs.ErrExist)
	}
	if err := m.record(Event{Op: OpLink, Path: oldname, Path2: newname, Inode: ino}); err != nil {
		return pathErr("link", oldname, err)
	}
	m.names[newname] = ino
	return nil
}

// Remove implements batch.FS: a file, or an empty directory.
func (m *FS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ino, ok := m.names[name]
	if !ok && m.dirs[name] {
		return m.removeDir(name)
	}
	if !ok {
		return pathErr("remove", name, fs.ErrNotExist)
	}
	if err := m.record(Event{Op: OpRemove, Path: name, Inode: ino}); err != nil {
		return pathErr("remove", name, err)
	}
	delete(m.names, name)
	return nil
}

// Flush implements batch.FS.
func (m *FS) Flush(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ino, ok := m.names[name]
	if !ok {
		return pathErr("fsync", name, fs.ErrNotExist)
	}
	if err := m.record(Event{Op: OpFlush, Path: name, Inode: ino}); err != nil {
		return pathErr("fsync", name, err)
	}
	return nil
}

// FlushDir implements batch.FS.
func (m *FS) FlushDir(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirs[name] {
		return pathErr("fsync", name, fs.ErrNotExist)
	}
	if err := m.record(Event{Op: OpFlushDir, Path: name}); err != nil {
		return pathErr("fsync", name, err)
	}
	return nil
}

// Kind implements batch.FS.
func (m *FS) Kind(string) batch.Kind {
	if m.FSKind == (batch.Kind{}) {
		return batch.Ext{}.Kind()
	}
	return m.FSKind
}

// removeDir removes the directory name where it is empty. m.mu must be
// held.
func (m *FS) removeDir(name string) error {
	for n := range m.names {
		if filepath.Dir(n) == name {
			return pathErr("remove", name, syscall.ENOTEMPTY)
		}
	}
	for d := range m.dirs {
		if filepath.Dir(d) == name && d != name {
			return pathErr("remove", name, syscall.ENOTEMPTY)
		}
	}
	if err := m.record(Event{Op: OpRemove, Path: name}); err != nil {
		return pathErr("remove", name, err)
	}
	delete(m.dirs, name)
	return nil
}
