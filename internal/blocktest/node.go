//go:build linux

package blocktest

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// dirNode is the root directory of a Recorder; it holds the one file.
type dirNode struct {
	fs.Inode
	rec *Recorder
}

var _ fs.NodeOnAdder = (*dirNode)(nil)

// OnAdd creates the one file.
func (d *dirNode) OnAdd(ctx context.Context) {
	f := d.NewPersistentInode(ctx, &fileNode{rec: d.rec}, fs.StableAttr{Mode: syscall.S_IFREG, Ino: 2})
	d.AddChild(FileName, f, false)
}

// fileNode is the recorded file. Its operations run concurrently; the
// Recorder serializes them, so the log order is the order in which the
// daemon answered, and a write is logged before its answer releases the
// block request it belongs to.
type fileNode struct {
	fs.Inode
	rec *Recorder
}

var (
	_ fs.NodeOpener    = (*fileNode)(nil)
	_ fs.NodeGetattrer = (*fileNode)(nil)
	_ fs.NodeSetattrer = (*fileNode)(nil)
	_ fs.NodeReader    = (*fileNode)(nil)
	_ fs.NodeWriter    = (*fileNode)(nil)
	_ fs.NodeFsyncer   = (*fileNode)(nil)
	_ fs.NodeFlusher   = (*fileNode)(nil)
	_ fs.NodeAllocater = (*fileNode)(nil)
)

// Open asks for direct I/O: no page cache for the file, every write
// reaches the daemon.
func (n *fileNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return nil, fuse.FOPEN_DIRECT_IO, 0
}

// Getattr reports the disk's size.
func (n *fileNode) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.Mode = syscall.S_IFREG | 0o600
	out.Size = uint64(n.rec.size())
	out.Blksize = BlockSize
	out.Blocks = (out.Size + 511) / 512
	return 0
}

// Setattr accepts what does not change the size (the loop driver and
// losetup touch only times and modes, if anything).
func (n *fileNode) Setattr(ctx context.Context, f fs.FileHandle, in *fuse.SetAttrIn, out *fuse.AttrOut) syscall.Errno {
	if sz, ok := in.GetSize(); ok && int64(sz) != n.rec.size() {
		return syscall.EPERM
	}
	return n.Getattr(ctx, f, out)
}

// Read serves the disk's current content.
func (n *fileNode) Read(ctx context.Context, f fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	size := n.rec.size()
	if off >= size {
		return fuse.ReadResultData(nil), 0
	}
	dest = dest[:min(int64(len(dest)), size-off)]
	n.rec.read(dest, off)
	return fuse.ReadResultData(dest), 0
}

// Write records a block write and applies it.
func (n *fileNode) Write(ctx context.Context, f fs.FileHandle, data []byte, off int64) (uint32, syscall.Errno) {
	if off < 0 || off+int64(len(data)) > n.rec.size() {
		return 0, syscall.ENOSPC
	}
	n.rec.write(data, off)
	return uint32(len(data)), 0
}

// Fsync is the device cache flush: the loop driver turns each REQ_PREFLUSH
// into an fsync of its backing file.
func (n *fileNode) Fsync(ctx context.Context, f fs.FileHandle, flags uint32) syscall.Errno {
	n.rec.flush()
	return 0
}

// Flush is close(2), not a cache flush.
func (n *fileNode) Flush(ctx context.Context, f fs.FileHandle) syscall.Errno { return 0 }

// Allocate records a punched or zeroed range (the loop driver's discard
// and write-zeroes) as a write of zeros; plain allocation changes nothing.
func (n *fileNode) Allocate(ctx context.Context, f fs.FileHandle, off, size uint64, mode uint32) syscall.Errno {
	if mode&(unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_ZERO_RANGE) == 0 {
		return 0
	}
	end := min(int64(off+size), n.rec.size())
	if int64(off) < end {
		n.rec.zero(int64(off), end-int64(off))
	}
	return 0
}
