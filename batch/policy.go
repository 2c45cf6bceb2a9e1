package batch

import (
	"errors"
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
	Method        string `json:"method"`
	Path          Path   `json:"path"`
	Reason        string `json:"reason,omitempty"` // why a fallback ran
	WriteoutOnly  int64  `json:"writeout-only"`
	HardwareFlush int64  `json:"hardware-flush"`
}

// Policy applies a sync method to the object writes of one store.
type Policy struct {
	fs      FS
	method  Method
	noFlush bool

	mu     sync.Mutex
	path   Path
	reason string

	writeouts atomic.Int64
	flushes   atomic.Int64
}

// New returns the policy for method opts.Method on the filesystem holding
// dir. A batch request falls back to PathFallback on a filesystem not known
// to order writeout before rename (btrfs among them).
func New(fsys FS, dir string, opts Options) *Policy {
	p := &Policy{fs: fsys, method: opts.Method, noFlush: opts.NoFlush}
	switch opts.Method {
	case Batch:
		p.path = PathBatch
		if k := fsys.Kind(dir); !k.Sound && !opts.Force {
			p.fallBack(k.Reason)
		}
	case Fsync:
		p.path = PathFsync
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
	return Stats{Method: p.method.String(), Path: p.path, Reason: p.reason,
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

func (p *Policy) flushFile(f File) error {
	if p.noFlush {
		return nil
	}
	if err := f.Sync(); err != nil {
		return err
	}
	p.flushes.Add(1)
	return nil
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
