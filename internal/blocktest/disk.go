//go:build linux

package blocktest

import (
	"errors"
	"io"
	"maps"
	"os"
	"slices"
)

// BlockSize is the unit in which a Disk keeps its content.
const BlockSize = 4096

// Disk is the content of a block device, kept sparse: a block that was
// never written, or holds only zeros, is not stored. Blocks are never
// changed in place, so Clone is cheap and a clone is independent.
type Disk struct {
	size   int64
	blocks map[int64][]byte
}

// NewDisk returns a disk of size bytes of zeros.
func NewDisk(size int64) *Disk {
	return &Disk{size: size, blocks: map[int64][]byte{}}
}

// LoadDisk returns a disk holding the content of the file name (for example
// a filesystem image made by mkfs).
func LoadDisk(name string) (*Disk, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	d := NewDisk(st.Size())
	buf := make([]byte, 1<<20)
	for off := int64(0); off < d.size; {
		n, err := f.ReadAt(buf, off)
		if n > 0 {
			d.WriteAt(buf[:n], off)
			off += int64(n)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Size returns the size of the disk in bytes.
func (d *Disk) Size() int64 { return d.size }

// Clone returns an independent copy of the disk.
func (d *Disk) Clone() *Disk {
	return &Disk{size: d.size, blocks: maps.Clone(d.blocks)}
}

// ReadAt fills p with the content at off; bytes past the end read as
// zeros.
func (d *Disk) ReadAt(p []byte, off int64) {
	for len(p) > 0 {
		b, in := off/BlockSize, off%BlockSize
		n := min(int64(len(p)), BlockSize-in)
		if blk, ok := d.blocks[b]; ok {
			copy(p[:n], blk[in:])
		} else {
			clear(p[:n])
		}
		p, off = p[n:], off+n
	}
}

// WriteAt stores p at off. Bytes past the end of the disk are dropped.
func (d *Disk) WriteAt(p []byte, off int64) {
	d.write(p, off, int64(len(p)))
}

// WriteZeros stores n zero bytes at off.
func (d *Disk) WriteZeros(off, n int64) { d.write(nil, off, n) }

// Apply performs a Write op; other ops change nothing.
func (d *Disk) Apply(o Op) {
	if o.Kind == Write {
		d.write(o.Data, o.Off, o.Len)
	}
}

func (d *Disk) write(p []byte, off, n int64) {
	n = min(n, d.size-off)
	for n > 0 && off >= 0 {
		b, in := off/BlockSize, off%BlockSize
		k := min(n, BlockSize-in)
		blk := make([]byte, BlockSize)
		if old, ok := d.blocks[b]; ok && k < BlockSize {
			copy(blk, old)
		}
		if p != nil {
			copy(blk[in:in+k], p[:k])
			p = p[k:]
		} else {
			clear(blk[in : in+k])
		}
		if zero(blk) {
			delete(d.blocks, b)
		} else {
			d.blocks[b] = blk
		}
		off, n = off+k, n-k
	}
}

func zero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// WriteFile writes the disk to a new sparse file name: only the stored
// blocks are written, runs of adjacent blocks in one write, and the rest
// stays a hole.
func (d *Disk) WriteFile(name string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = f.Truncate(d.size)
	idx := slices.Sorted(maps.Keys(d.blocks))
	run := make([]byte, 0, maxRun)
	for i := 0; i < len(idx) && err == nil; {
		start := idx[i]
		run = run[:0]
		for ; i < len(idx) && idx[i] == start+int64(len(run)/BlockSize) && len(run) < maxRun; i++ {
			run = append(run, d.blocks[idx[i]]...)
		}
		_, err = f.WriteAt(run[:min(int64(len(run)), d.size-start*BlockSize)], start*BlockSize)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// maxRun bounds one write of WriteFile.
const maxRun = 1 << 20
