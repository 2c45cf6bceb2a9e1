//go:build linux

// Package blocktest records every block write and every cache flush that a
// real kernel filesystem sends to its device, and replays the record into
// crash images: the ground truth behind the crash model of
// docs/crash-model.md.
//
// The device is a loop device whose backing file is the one file of a FUSE
// filesystem served by this process (Recorder). The loop driver turns every
// block write into a WRITE of that file and every REQ_PREFLUSH into an
// FSYNC of it, so the daemon sees the device's writes in completion order
// and the points where the device cache was flushed. A crash may persist
// everything before the last flush and any subset of the writes after it;
// Points lists such states (every flush boundary plus seeded random subsets
// of the epoch that follows) and Image builds one as a file that a test
// mounts (journal recovery) and checks (CheckObjects, Fsck).
package blocktest

import "fmt"

// Kind says what an Op is.
type Kind int

// The kinds of recorded operations.
const (
	// Write is a block write: Len bytes at Off, Data or zeros when Data is
	// nil (a hole punched or a range zeroed).
	Write Kind = iota
	// Flush is a device cache flush: every write before it is durable.
	Flush
	// Mark is a label the test put into the log (for example "done"
	// after the program under test returned).
	Mark
)

// Op is one recorded operation.
type Op struct {
	Kind Kind
	Off  int64
	Len  int64
	Data []byte
	Name string
}

// String describes the op for messages.
func (o Op) String() string {
	switch o.Kind {
	case Write:
		return fmt.Sprintf("write %d+%d", o.Off, o.Len)
	case Flush:
		return "flush"
	default:
		return "mark " + o.Name
	}
}

// Log is the recorded operations in the order the device completed them.
type Log []Op

// Flushes returns the indices of the Flush operations.
func (l Log) Flushes() []int {
	var f []int
	for i, o := range l {
		if o.Kind == Flush {
			f = append(f, i)
		}
	}
	return f
}

// MarkIndex returns the index of the first mark called name, or -1.
func (l Log) MarkIndex(name string) int {
	for i, o := range l {
		if o.Kind == Mark && o.Name == name {
			return i
		}
	}
	return -1
}

// LastFlushBefore returns the index of the last flush before index i, or
// -1 when there is none: the durable prefix of a crash at i.
func (l Log) LastFlushBefore(i int) int {
	for j := min(i, len(l)) - 1; j >= 0; j-- {
		if l[j].Kind == Flush {
			return j
		}
	}
	return -1
}

// Stats counts the writes, written bytes and flushes of the log.
func (l Log) Stats() (writes int, bytes int64, flushes int) {
	for _, o := range l {
		switch o.Kind {
		case Write:
			writes++
			bytes += o.Len
		case Flush:
			flushes++
		}
	}
	return writes, bytes, flushes
}
