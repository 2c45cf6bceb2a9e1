package crashtest

import (
	"fmt"
	"path/filepath"
)

// step is an event with its names resolved to inodes, as the program saw
// them when it ran the event.
type step struct {
	Event
	ino      int  // the inode operated on (0: none, or a directory)
	replaced int  // Rename, Link: the inode that lost Path2 (0: none)
	dir      bool // Flush: of a directory
	floor    int  // Flush, Syncfs: the commit point it forces (M_J)
}

// inode is a file of the trace.
type inode struct {
	written int64  // bytes written, in program order
	data    []byte // the bytes, while every write carried them
	unknown bool   // some write did not carry its data: read it after the run
	final   string // the inode's name at the end of the trace, if any
}

// resolved is a trace with every name resolved.
type resolved struct {
	initial []step // the filesystem before the run: all durable
	steps   []step // the run
	inodes  map[int]*inode
}

// resolver follows the namespace through a trace.
type resolver struct {
	names     map[string]int // file path → inode
	dirs      map[string]bool
	inodes    map[int]*inode
	next      int
	lastInode map[int]int    // inode → index of the last metadata op touching it
	lastDir   map[string]int // directory → index of the last op on it or an entry in it
}

// resolve resolves the initial events, then the run's.
func resolve(initial, run []Event) (*resolved, error) {
	r := &resolver{names: map[string]int{}, dirs: map[string]bool{}, inodes: map[int]*inode{}}
	for _, evs := range [][]Event{initial, run} {
		for _, e := range evs {
			if e.Inode > r.next {
				r.next = e.Inode
			}
		}
	}
	res := &resolved{inodes: r.inodes}
	var err error
	if res.initial, err = r.run(initial); err != nil {
		return nil, err
	}
	if res.steps, err = r.run(run); err != nil {
		return nil, err
	}
	for name, ino := range r.names {
		r.inodes[ino].final = name
	}
	return res, nil
}

// run resolves a sequence of events and gives each flush the commit point
// it forces within that sequence.
func (r *resolver) run(evs []Event) ([]step, error) {
	out := make([]step, 0, len(evs))
	for _, e := range evs {
		s, ok, err := r.step(e)
		if err != nil {
			return nil, fmt.Errorf("crash: %v: %w", e, err)
		}
		if ok {
			out = append(out, s)
		}
	}
	// Index by position in out: floors point at commit points of out.
	r.lastInode, r.lastDir = map[int]int{}, map[string]int{}
	for i := range out {
		r.touch(i, &out[i])
	}
	return out, nil
}

// lookup returns the inode e operates on.
func (r *resolver) lookup(e Event) int {
	if e.Inode != 0 {
		if r.inodes[e.Inode] == nil {
			r.inodes[e.Inode] = &inode{data: []byte{}}
		}
		return e.Inode
	}
	return r.names[e.Path]
}

// fresh returns a new inode, or the one the source named.
func (r *resolver) fresh(e Event) int {
	ino := e.Inode
	if ino == 0 {
		r.next++
		ino = r.next
	}
	r.inodes[ino] = &inode{data: []byte{}}
	return ino
}

// step applies e to the namespace. Events on names nothing created (a
// pipe's fd, a file outside the trace) are dropped (ok false).
func (r *resolver) step(e Event) (s step, ok bool, err error) {
	s.Event = e
	switch e.Op {
	case Create:
		if ino := r.names[e.Path]; ino != 0 && e.Inode == 0 {
			return s, false, nil // O_CREAT of a file that exists: an open
		}
		s.ino = r.fresh(e)
		r.names[e.Path] = s.ino
	case Mkdir:
		r.dirs[e.Path] = true
	case Write:
		if s.ino = r.lookup(e); s.ino == 0 {
			return s, false, nil
		}
		n := r.inodes[s.ino]
		n.written += e.Len
		if e.Data == nil || n.unknown {
			n.unknown, n.data = true, nil
		} else {
			n.data = append(n.data, e.Data...)
		}
	case Writeout, Chmod:
		if s.ino = r.lookup(e); s.ino == 0 {
			return s, false, nil
		}
	case Flush:
		s.ino = r.lookup(e)
		s.dir = s.ino == 0
	case Syncfs:
	case Rename, Link:
		if s.ino = r.lookup(e); s.ino == 0 {
			return s, false, fmt.Errorf("%s does not exist", e.Path)
		}
		s.replaced = r.names[e.Path2]
		if s.replaced == s.ino {
			return s, false, nil // a rename onto itself changes nothing
		}
		r.names[e.Path2] = s.ino
		if e.Op == Rename {
			delete(r.names, e.Path)
		}
	case Remove:
		if s.ino = r.names[e.Path]; s.ino != 0 {
			delete(r.names, e.Path)
		} else if !r.dirs[e.Path] {
			return s, false, nil
		}
		delete(r.dirs, e.Path)
	default:
		return s, false, fmt.Errorf("unknown op %v", e.Op)
	}
	return s, true, nil
}

// touch records what metadata step i touched, and gives a flush the commit
// point it forces: on ext4 and xfs, fsync of X commits the journal up to
// the transaction that last touched X (for a directory: X or an entry in
// it), not necessarily everything before the fsync.
func (r *resolver) touch(i int, s *step) {
	switch {
	case s.Op == Flush && s.dir:
		if j, ok := r.lastDir[s.Path]; ok {
			s.floor = j + 1
		}
	case s.Op == Flush:
		if j, ok := r.lastInode[s.ino]; ok {
			s.floor = j + 1
		}
	case s.Op == Syncfs:
		s.floor = i
	case s.Op.metadata():
		for _, ino := range []int{s.ino, s.replaced} {
			if ino != 0 {
				r.lastInode[ino] = i
			}
		}
		r.lastDir[filepath.Dir(s.Path)] = i
		if s.Op == Mkdir || s.Op == Remove && s.ino == 0 {
			r.lastDir[s.Path] = i
		}
		if s.Path2 != "" {
			r.lastDir[filepath.Dir(s.Path2)] = i
		}
	}
}
