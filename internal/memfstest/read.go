package memfstest

import (
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// ReadFile implements batch.FS.
func (m *FS) ReadFile(name string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ino, ok := m.names[name]
	if !ok {
		return nil, pathErr("open", name, fs.ErrNotExist)
	}
	return append([]byte(nil), m.inodes[ino].data...), nil
}

// ReadDir implements batch.FS.
func (m *FS) ReadDir(name string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirs[name] {
		return nil, pathErr("open", name, fs.ErrNotExist)
	}
	var out []string
	prefix := name + string(filepath.Separator)
	add := func(p string) {
		if rest, ok := strings.CutPrefix(p, prefix); ok && !strings.ContainsRune(rest, filepath.Separator) {
			out = append(out, rest)
		}
	}
	for p := range m.names {
		add(p)
	}
	for p := range m.dirs {
		add(p)
	}
	sort.Strings(out)
	return out, nil
}

// Stat implements batch.FS.
func (m *FS) Stat(name string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirs[name] {
		return info{name: filepath.Base(name), mode: fs.ModeDir | 0o777}, nil
	}
	ino, ok := m.names[name]
	if !ok {
		return nil, pathErr("stat", name, fs.ErrNotExist)
	}
	n := m.inodes[ino]
	return info{name: filepath.Base(name), size: int64(len(n.data)), mode: n.mode, mtime: n.mtime}, nil
}

// Lstat implements batch.FS: the filesystem holds no symbolic link, so it
// is Stat.
func (m *FS) Lstat(name string) (fs.FileInfo, error) { return m.Stat(name) }
