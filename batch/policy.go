package batch

import (
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Path is the way a policy syncs object writes: the method asked for, or
// the fallback that replaced it.
type Path string

// Paths a policy can run; Stats.Path names the one that ran.
const (
	PathNone         Path = "none"
	PathWriteoutOnly Path = "writeout-only"
	PathFsync        Path = "fsync"
	PathBatch        Path = "batch"
	// PathFallback is fsync per object and per directory, run where batch
	// was asked for but is not sound.
	PathFallback Path = "fallback-fsync"
)

// Options configures a Policy. The zero value syncs nothing.
type Options struct {
	Method Method
	// NoFlush skips full flushes and keeps writeouts, as git does when
	// GIT_TEST_FSYNC is false.
	NoFlush bool
	// Force runs the batch scheme even on a filesystem not known to make
	// it sound (GIT_DURABLE_FORCE_BATCH): for tests of the scheme's system
	// calls on whatever filesystem they run on. Not durable there.
	Force bool
}

// Stats reports what a policy did, with git's trace2 counter names.
type Stats struct {
	Method string `json:"method"`
	Path   Path   `json:"path"`
	Reason string `json:"reason,omitempty"` // why a fallback ran
	// Filesystem is the name the policy chose by (Kind.Name), for the
	// methods that flush.
	Filesystem    string `json:"filesystem,omitempty"`
	WriteoutOnly  int64  `json:"writeout-only"`
	HardwareFlush int64  `json:"hardware-flush"`
}

// Policy applies a sync method to the object writes of one store.
type Policy struct {
	fs        FS
	method    Method
	noFlush   bool
	dirCommit bool   // Kind.DirCommit: every full flush syncs a directory
	dataFlush bool   // !Kind.Sound: a directory commit may not flush the device
	fsName    string // Kind.Name

	mu     sync.Mutex
	path   Path
	reason string

	writeouts atomic.Int64
	flushes   atomic.Int64
}

// New returns the policy for method opts.Method on the filesystem holding
// dir. A batch request falls back to PathFallback on a filesystem not known
// to order writeout before rename (btrfs among them). The filesystem is
// asked once, here, for the methods that flush.
func New(fsys FS, dir string, opts Options) *Policy {
	p := &Policy{fs: fsys, method: opts.Method, noFlush: opts.NoFlush}
	switch opts.Method {
	case Batch:
		p.path = PathBatch
		k := fsys.Kind(dir)
		p.dirCommit, p.dataFlush, p.fsName = k.DirCommit, !k.Sound, k.Name
		if !k.Sound && !opts.Force {
			p.fallBack(k.Reason)
		}
	case Fsync:
		p.path = PathFsync
		k := fsys.Kind(dir)
		p.dirCommit, p.dataFlush, p.fsName = k.DirCommit, !k.Sound, k.Name
	case WriteoutOnly:
		p.path = PathWriteoutOnly
	default:
		p.path = PathNone
	}
	return p
}

func (p *Policy) fallBack(reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.path == PathBatch {
		p.path, p.reason = PathFallback, reason
	}
}

func (p *Policy) currentPath() Path {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.path
}

// Stats returns the counters and the path that ran.
func (p *Policy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Stats{Method: p.method.String(), Path: p.path, Reason: p.reason, Filesystem: p.fsName,
		WriteoutOnly: p.writeouts.Load(), HardwareFlush: p.flushes.Load()}
}

// FS returns the filesystem the policy works on.
func (p *Policy) FS() FS { return p.fs }

// syncFile gives a written file the sync its path asks for and reports
// whether it was a writeout (true) or a full flush or nothing (false).
func (p *Policy) syncFile(f File) (wroteOut bool, err error) {
	switch p.currentPath() {
	case PathNone:
		return false, nil
	case PathWriteoutOnly, PathBatch:
		err := f.Writeout()
		if err == nil {
			p.writeouts.Add(1)
			return true, nil
		}
		if !errors.Is(err, errors.ErrUnsupported) {
			return false, err
		}
		p.fallBack("writeout-only sync is not available: " + err.Error())
	}
	return false, p.flushFile(f)
}

// flushFile makes the written file f durable before its rename: f.Sync,
// or where a regular file's sync may be a fast commit (dirCommit), a
// writeout of f and then a sync of its directory, which is a full journal
// commit that holds f's blocks and size.
//
// On ext4 that commit is preceded by a device cache flush only where the
// filesystem is sound: with journal_async_commit the commit record goes
// out without one, and a directory's fsync with nothing left to commit
// (f's blocks committed in the background meanwhile) issues no flush at
// all, so that a later rename's commit could reach the disk before f's
// data. There (dataFlush) f, now written out and committed, also gets an
// fdatasync, which ext4 then turns into the device cache flush alone:
// its transaction is committed, so there is no fast commit to start.
func (p *Policy) flushFile(f File) error {
	if p.noFlush {
		return nil
	}
	if p.dirCommit {
		err := f.Writeout()
		if err == nil {
			p.writeouts.Add(1)
			if err := p.flush(filepath.Dir(f.Name()), true); err != nil || !p.dataFlush {
				return err
			}
			if err := f.DataSync(); err != nil {
				return err
			}
			p.flushes.Add(1)
			return nil
		}
		if !errors.Is(err, errors.ErrUnsupported) {
			return err
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	p.flushes.Add(1)
	return nil
}

// flushLast is the batch's one full flush, of the file renamed last, or
// of its directory where dirCommit asks for a full journal commit: that
// commit holds the last rename and every one before it.
func (p *Policy) flushLast(last string) error {
	if p.dirCommit {
		return p.flush(filepath.Dir(last), true)
	}
	return p.flush(last, false)
}

func (p *Policy) flush(name string, dir bool) error {
	if p.noFlush {
		return nil
	}
	var err error
	if dir {
		err = p.fs.FlushDir(name)
	} else {
		err = p.fs.Flush(name)
	}
	if err == nil {
		p.flushes.Add(1)
	}
	return err
}
