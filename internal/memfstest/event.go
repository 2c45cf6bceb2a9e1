package memfstest

import (
	"errors"
	"syscall"
)

// Op is the kind of an event.
type Op string

// The recorded operations.
const (
	OpCreate   Op = "create"
	OpWrite    Op = "write"
	OpWriteout Op = "writeout"
	OpSync     Op = "sync"     // full flush of an open file
	OpDataSync Op = "datasync" // full flush of an open file's data
	OpClose    Op = "close"
	OpRename   Op = "rename"
	OpLink     Op = "link"
	OpMkdir    Op = "mkdir"
	OpRemove   Op = "remove"
	OpChmod    Op = "chmod"
	OpFlush    Op = "flush"    // full flush of a file by name
	OpFlushDir Op = "flushdir" // full flush of a directory
)

// Event is one recorded operation.
type Event struct {
	Op    Op
	Path  string // for rename and link: the old name
	Path2 string // for rename and link: the new name
	Inode int    // the file's inode for create, write, writeout, sync, close, flush
	Data  []byte // for write: the bytes written
}

// Events returns a copy of the recorded events.
func (m *FS) Events() []Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Event(nil), m.events...)
}

// record appends ev unless the fault injector fails it. m.mu must be held.
func (m *FS) record(ev Event) error {
	i := m.ops
	m.ops++
	if m.Fail != nil {
		if err := m.Fail(i, ev); err != nil {
			return err
		}
	}
	if ev.Data != nil {
		ev.Data = append([]byte(nil), ev.Data...)
	}
	m.events = append(m.events, ev)
	return nil
}

// ErrInjected is a convenient error for fault injection.
var ErrInjected = errors.New("memfs: injected fault")

// EIO and ENOSPC are the faults a fault sweep injects.
var (
	EIO    error = syscall.EIO
	ENOSPC error = syscall.ENOSPC
)
