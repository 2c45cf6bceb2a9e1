package batch

import "fmt"

// Method is how object writes are synced; the names are git's
// core.fsyncMethod values plus none.
type Method int

// The sync methods.
const (
	// None syncs nothing.
	None Method = iota
	// WriteoutOnly gives each object a writeout-only sync and no flush.
	WriteoutOnly
	// Fsync fully flushes every object before its rename and every
	// directory that received a new name at the end.
	Fsync
	// Batch writes each object out before its rename and flushes once,
	// after the last rename.
	Batch
)

var methodNames = [...]string{None: "none", WriteoutOnly: "writeout-only", Fsync: "fsync", Batch: "batch"}

// String returns the method's name.
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("method(%d)", int(m))
}

// ParseMethod returns the method with the given name.
func ParseMethod(s string) (Method, bool) {
	for m, name := range methodNames {
		if s == name {
			return Method(m), true
		}
	}
	return None, false
}
