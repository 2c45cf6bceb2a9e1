//go:build linux

package blocktest

import (
	"errors"
	"path/filepath"
	"sync"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// FileName is the name of the recorded file inside the FUSE mount.
const FileName = "disk"

// Recorder serves a FUSE filesystem holding one file, FileName, whose
// content is a Disk, and logs every change to it: each WRITE (and each
// fallocate that zeroes a range) as a Write op and each FSYNC as a Flush.
// Used as the backing file of a loop device, it sees what the device sees.
type Recorder struct {
	mu   sync.Mutex
	base *Disk
	disk *Disk
	log  Log

	server *fuse.Server
	dir    string
}

// Serve mounts the recorder's filesystem at the directory dir with the
// content disk, which the recorder owns from now on. Passthrough and the
// writeback cache stay off and the file is opened for direct I/O, so that
// every write reaches the daemon when it is made.
func Serve(dir string, disk *Disk) (*Recorder, error) {
	r := &Recorder{base: disk.Clone(), disk: disk, dir: dir}
	root := &dirNode{rec: r}
	server, err := fs.Mount(dir, root, &fs.Options{MountOptions: fuse.MountOptions{
		DirectMountStrict:    true,
		DisabledCapabilities: fuse.CAP_PASSTHROUGH | fuse.CAP_WRITEBACK_CACHE,
		FsName:               "blockrec",
		Name:                 "blockrec",
	}})
	if err != nil {
		return nil, err
	}
	r.server = server
	return r, nil
}

// Path returns the path of the recorded file.
func (r *Recorder) Path() string { return filepath.Join(r.dir, FileName) }

// Base returns the content the disk had when recording began.
func (r *Recorder) Base() *Disk { return r.base }

// Rebase makes the disk as it is now the base and begins the log anew:
// the crash states of a later replay are those of what follows. Call it
// once the filesystem is synced (syncfs), so that the device holds a state
// it could have held durably: a test prepares its repository on the
// recorded filesystem, and only the command it proves is replayed.
func (r *Recorder) Rebase() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.base, r.log = r.disk.Clone(), nil
}

// Mark appends a Mark op called name to the log.
func (r *Recorder) Mark(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, Op{Kind: Mark, Name: name})
}

// Log returns a copy of the operations recorded so far.
func (r *Recorder) Log() Log {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(Log(nil), r.log...)
}

// Close unmounts the filesystem and stops the daemon. When the file is
// still in use (a loop device whose filesystem was detached lazily after a
// failure), it detaches the mount lazily and reports the error: the daemon
// keeps serving the device until the process exits.
func (r *Recorder) Close() error {
	if r.server == nil {
		return nil
	}
	err := r.server.Unmount()
	if err != nil {
		err = errors.Join(err, run("umount", "-l", r.dir))
	}
	r.server = nil
	return err
}

func (r *Recorder) size() int64 { return r.disk.Size() }

func (r *Recorder) read(p []byte, off int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.disk.ReadAt(p, off)
}

func (r *Recorder) write(data []byte, off int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	op := Op{Kind: Write, Off: off, Len: int64(len(data)), Data: append([]byte(nil), data...)}
	r.log = append(r.log, op)
	r.disk.Apply(op)
}

func (r *Recorder) zero(off, n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	op := Op{Kind: Write, Off: off, Len: n}
	r.log = append(r.log, op)
	r.disk.Apply(op)
}

func (r *Recorder) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, Op{Kind: Flush})
}
