package fsck

import (
	"fmt"

	"github.com/git-durable/git-durable/object"
)

// Severity of a message: Ignore, Info, Warn, Error (git's fsck_msg_type).
type Severity int

// The severities, weakest first. Git prints Info messages as warnings, and
// so Problems never carry Info: see Problem.Severity.
const (
	Ignore Severity = iota
	Info
	Warn
	Error
)

// String returns the name git uses for the severity in --strict lists and
// fsck.<msg-id> settings ("ignore", "info", "warn", "error").
func (s Severity) String() string {
	switch s {
	case Ignore:
		return "ignore"
	case Info:
		return "info"
	case Warn:
		return "warn"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// Options holds per-message severities and a skip list; the zero value /
// Strict() = git's FSCK_OPTIONS_STRICT defaults (strict upgrades WARN to
// ERROR, INFO stays info). It also carries, between Check and Finish, the
// ids of the blobs that trees name .gitmodules or .gitattributes. An Options
// must not be used by two goroutines at once.
type Options struct {
	level [numMsgs]Severity
	isSet [numMsgs]bool
	skip  map[object.ID]struct{}

	modulesFound, modulesDone map[object.ID]struct{}
	attrsFound, attrsDone     map[object.ID]struct{}

	// Promised, when set, makes Finish skip a .gitmodules or
	// .gitattributes blob it cannot read, as git's fsck_finish skips a
	// promisor object: the check of a promisor pack, whose trees may name
	// blobs a filter left out.
	Promised bool
}

// Strict returns Options with git's FSCK_OPTIONS_STRICT defaults.
func Strict() *Options { return &Options{} }

// severity returns the severity m has under o.
func (o *Options) severity(m msgID) Severity {
	if o.isSet[m] {
		return o.level[m]
	}
	s := msgTable[m].def
	if s == Warn {
		s = Error // strict
	}
	return s
}

// Severity returns the severity the message with the given camelCase id
// (matched case-insensitively) has under o; ok is false for an unknown id.
func (o *Options) Severity(msgID string) (s Severity, ok bool) {
	m, ok := lookupMsg(msgID)
	if !ok {
		return 0, false
	}
	return o.severity(m), true
}

// SetSeverity sets the severity of one message, with git's checks and error
// texts: an unknown id is "Unhandled message id: <id>" and a fatal message
// (nulInHeader, unterminatedHeader) cannot be set below Error.
func (o *Options) SetSeverity(msgID string, s Severity) error {
	if s < Ignore || s > Error {
		return fmt.Errorf("Unknown fsck message type: '%s'", s)
	}
	m, ok := lookupMsg(msgID)
	if !ok {
		return fmt.Errorf("Unhandled message id: %s", msgID)
	}
	if msgTable[m].fatal && s != Error {
		return fmt.Errorf("Cannot demote %s to %s", msgID, s)
	}
	o.level[m], o.isSet[m] = s, true
	return nil
}

// Skip adds id to the skip list: no problem is ever reported for it.
func (o *Options) Skip(id object.ID) {
	if o.skip == nil {
		o.skip = make(map[object.ID]struct{})
	}
	o.skip[id] = struct{}{}
}

// Skipped reports whether id is on the skip list.
func (o *Options) Skipped(id object.ID) bool {
	_, ok := o.skip[id]
	return ok
}

// Check checks one object's content and returns the problems at Warn or
// Error severity, in the order git reports them (messages set to Ignore and
// objects on the skip list produce nothing; Info-level messages come back as
// Warn, since git prints them as warnings). It also remembers what Finish
// needs: the ids of blobs that trees name .gitmodules or .gitattributes.
// For a blob already so named, Check runs the blob checks right away, as
// git's fsck_blob does. Check never panics, whatever data holds.
func (o *Options) Check(id object.ID, t object.Type, data []byte, f object.Format) []Problem {
	r := &reporter{o: o, id: id, t: t}
	if o.Skipped(id) {
		if t != object.Tree {
			return nil
		}
		r.mute = true
	}
	switch t {
	case object.Blob:
		o.checkBlob(r, id, data, false)
	case object.Tree:
		o.checkTree(r, data, f.Size())
	case object.Commit:
		checkCommit(r, data, 2*f.Size())
	case object.Tag:
		checkTag(r, data, 2*f.Size())
	default:
		r.report(msgUnknownType, fmt.Sprintf("unknown type '%d' (internal fsck error)", int(t)))
	}
	return r.out
}
