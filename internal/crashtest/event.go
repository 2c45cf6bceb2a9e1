package crashtest

import (
	"fmt"

	"github.com/git-durable/git-durable/internal/memfstest"
)

// Op is the kind of a file event, as the crash models see it.
type Op int

// The events. Create, Mkdir, Rename, Link, Remove and Chmod are metadata
// operations: they join the running journal transaction, in order. Write
// changes only the page cache. Writeout and Flush decide what is durable.
const (
	// Create creates the file Path (a new inode). Without Inode, a Create
	// of a name that exists is an open of that file and no event.
	Create Op = iota
	// Write appends Len bytes (Data, when known) to an inode.
	Write
	// Writeout is a completed writeout-only sync of an inode: its data as
	// of now reaches the device, without a cache flush and without a
	// journal commit.
	Writeout
	// Mkdir creates the directory Path.
	Mkdir
	// Rename renames Path to Path2, replacing Path2.
	Rename
	// Link gives the inode of Path the new name Path2.
	Link
	// Remove removes the name Path.
	Remove
	// Chmod changes an inode's mode: a metadata operation on the inode.
	Chmod
	// Flush is fsync or fdatasync of a file (Inode, or Path naming a file)
	// or of a directory (Path naming no file): a forced journal commit,
	// preceded by a device cache flush. Of a file it is also a writeout.
	Flush
	// Syncfs writes out every inode and commits everything so far.
	Syncfs
)

var opNames = [...]string{Create: "create", Write: "write", Writeout: "writeout", Mkdir: "mkdir",
	Rename: "rename", Link: "link", Remove: "remove", Chmod: "chmod", Flush: "flush", Syncfs: "syncfs"}

// String returns the event kind's name.
func (o Op) String() string {
	if o >= 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", int(o))
}

// metadata reports whether o joins the journal as a metadata operation.
func (o Op) metadata() bool {
	switch o {
	case Create, Mkdir, Rename, Link, Remove, Chmod:
		return true
	}
	return false
}

// Event is one operation of a trace, in program order. File operations
// name their inode directly (Inode, from memfs) or by a path that names it
// at that point of the trace (Path, from strace -y); Inode wins when set.
type Event struct {
	Op    Op
	Path  string // the name operated on; for Rename and Link the old name
	Path2 string // Rename, Link: the new name
	Inode int    // the inode, when the source knows it; 0 otherwise
	Len   int64  // Write: bytes written
	Data  []byte // Write: the bytes, when known (nil: fetched after the run)
	Line  int    // where the event came from (trace line or event index), for reports
}

func (e Event) String() string {
	switch e.Op {
	case Rename, Link:
		return fmt.Sprintf("#%d %v %s -> %s", e.Line, e.Op, e.Path, e.Path2)
	case Write:
		return fmt.Sprintf("#%d write %s (%d bytes)", e.Line, e.Path, e.Len)
	}
	if e.Path == "" {
		return fmt.Sprintf("#%d %v inode %d", e.Line, e.Op, e.Inode)
	}
	return fmt.Sprintf("#%d %v %s", e.Line, e.Op, e.Path)
}

// FromMemfs converts the events memfs recorded. Inode numbers are kept,
// so they must not be mixed with events from another source. Close is
// dropped: it makes nothing durable. A full sync of an open file (Sync)
// and a flush by name are both Flush.
func FromMemfs(evs []memfstest.Event) []Event {
	out := make([]Event, 0, len(evs))
	for i, m := range evs {
		e := Event{Path: m.Path, Path2: m.Path2, Inode: m.Inode, Line: i}
		switch m.Op {
		case memfstest.OpCreate:
			e.Op = Create
		case memfstest.OpWrite:
			e.Op, e.Data, e.Len = Write, m.Data, int64(len(m.Data))
			if e.Data == nil {
				e.Data = []byte{}
			}
		case memfstest.OpWriteout:
			e.Op = Writeout
		case memfstest.OpSync, memfstest.OpDataSync, memfstest.OpFlush:
			e.Op = Flush
		case memfstest.OpFlushDir:
			e.Op, e.Inode = Flush, 0
		case memfstest.OpRename:
			e.Op = Rename
		case memfstest.OpLink:
			e.Op = Link
		case memfstest.OpMkdir:
			e.Op = Mkdir
		case memfstest.OpRemove:
			e.Op = Remove
		case memfstest.OpChmod:
			e.Op = Chmod
		case memfstest.OpClose:
			continue
		default:
			panic("crash: unknown memfs op " + string(m.Op))
		}
		out = append(out, e)
	}
	return out
}

// Readable checks, under M_J, every crash state of the run memfs m
// recorded after its first setup events (which built what was there
// before): readable says what a state (read) lacks that git read before
// the run, "" where nothing.
func Readable(m *memfstest.FS, setup int, readable func(read func(string) ([]byte, bool)) string) (*Report, error) {
	evs := m.Events()
	return Check(FromMemfs(evs[setup:]), Options{Model: MJ, Initial: FromMemfs(evs[:setup]), Readable: readable})
}
