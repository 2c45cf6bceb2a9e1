package memfstest

import (
	"io"
	"io/fs"
	"time"
)

type file struct {
	m      *FS
	name   string
	ino    int
	closed bool
}

func (f *file) Name() string { return f.name }

func (f *file) do(ev Event, apply func(n *inode)) error {
	f.m.mu.Lock()
	defer f.m.mu.Unlock()
	if f.closed {
		return pathErr(string(ev.Op), f.name, fs.ErrClosed)
	}
	ev.Path, ev.Inode = f.name, f.ino
	if err := f.m.record(ev); err != nil {
		return pathErr(string(ev.Op), f.name, err)
	}
	if apply != nil {
		apply(f.m.inodes[f.ino])
	}
	return nil
}

func (f *file) Write(p []byte) (int, error) {
	err := f.do(Event{Op: OpWrite, Data: p}, func(n *inode) { n.data = append(n.data, p...) })
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

func (f *file) Writeout() error { return f.do(Event{Op: OpWriteout}, nil) }

func (f *file) Sync() error { return f.do(Event{Op: OpSync}, nil) }

func (f *file) DataSync() error { return f.do(Event{Op: OpDataSync}, nil) }

func (f *file) Chmod(perm fs.FileMode) error {
	return f.do(Event{Op: OpChmod}, func(n *inode) { n.mode = perm })
}

func (f *file) Close() error {
	err := f.do(Event{Op: OpClose}, nil)
	f.m.mu.Lock()
	f.closed = true
	f.m.mu.Unlock()
	return err
}

type readFile struct {
	m    *FS
	ino  int
	name string
	off  int64
}

func (r *readFile) ReadAt(p []byte, off int64) (int, error) {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	data := r.m.inodes[r.ino].data
	if off >= int64(len(data)) {
		return 0, io.EOF
	}
	n := copy(p, data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (r *readFile) Read(p []byte) (int, error) {
	n, err := r.ReadAt(p, r.off)
	r.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (r *readFile) Close() error { return nil }

func (r *readFile) Stat() (fs.FileInfo, error) {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	return info{name: r.name, size: int64(len(r.m.inodes[r.ino].data)), mode: 0o444}, nil
}

type info struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
}

func (i info) Name() string       { return i.name }
func (i info) Size() int64        { return i.size }
func (i info) Mode() fs.FileMode  { return i.mode }
func (i info) ModTime() time.Time { return i.mtime }
func (i info) IsDir() bool        { return i.mode.IsDir() }
func (i info) Sys() any           { return nil }
