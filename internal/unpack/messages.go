package unpack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/pack"
)

// Kind says how git reports an error: with error() and exit 1, or with
// die() and exit 128.
type Kind int

// The two kinds of failure.
const (
	Fatal Kind = iota // "fatal: …", exit 128
	Error             // "error: …", exit 1
)

// Level is the prefix of a line git prints: error() or die().
type Level int

// The levels of a Message.
const (
	LevelFatal Level = iota // "fatal: "
	LevelError              // "error: "
)

// Message is one line git prints for a failure: its level and its text,
// without the prefix.
type Message struct {
	Level Level
	Text  string
}

// String is the line as git prints it.
func (m Message) String() string {
	if m.Level == LevelError {
		return "error: " + m.Text
	}
	return "fatal: " + m.Text
}

func fatal(text string) Message { return Message{LevelFatal, text} }

func errorLine(text string) Message { return Message{LevelError, text} }

// Describe returns the lines git prints for err and how it exits. Several
// failures print an error() line before the fatal one. It is the one place
// that maps the resolver's failures to git's words.
func Describe(err error) (lines []Message, kind Kind) {
	if lines, kind, ok := describeEntry(err); ok {
		return lines, kind
	}
	if text, ok := fatalText(err); ok {
		return []Message{fatal(text)}, Fatal
	}
	var we *loose.WriteError
	if errors.As(err, &we) {
		return writeFailure(we), Fatal
	}
	var pe *PackWriteError
	if errors.As(err, &pe) {
		return packWriteFailure(pe), Fatal
	}
	return []Message{fatal(err.Error())}, Fatal
}

// describeEntry is Describe for the failures of one entry or object: the
// error() lines git prints, and whether err is one of them.
func describeEntry(err error) (lines []Message, kind Kind, ok bool) {
	var (
		te *pack.TypeError
		ie *pack.InflateError
		be *BaseError
		de *DeltaError
		se *StrictError
	)
	switch {
	case errors.As(err, &te), errors.As(err, &ie), errors.As(err, &be):
		for _, l := range errorLines(err) {
			lines = append(lines, errorLine(l))
		}
		return lines, Error, true
	case errors.Is(err, ErrRecovered):
		return nil, Error, true
	case errors.As(err, &de):
		var pre []Message
		switch {
		case errors.Is(err, pack.ErrDeltaOpcode):
			pre = []Message{errorLine("unexpected delta opcode 0")}
		case errors.Is(err, pack.ErrDeltaCorrupt):
			pre = []Message{errorLine("delta replay has gone wild")}
		case errors.Is(err, ErrExpansion):
			pre = []Message{errorLine(de.Err.Error())}
		}
		return append(pre, fatal("failed to apply delta")), Fatal, true
	case errors.As(err, &se):
		for _, l := range se.Lines {
			lines = append(lines, errorLine(l))
		}
		return append(lines, fatal(se.Msg)), Fatal, true
	}
	return nil, 0, false
}

// fatalText is git's fatal line for a failure of the stream, and whether
// err is one.
func fatalText(err error) (string, bool) {
	var (
		ve pack.VersionError
		re *pack.ReadError
		ce *CollisionError
	)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "early EOF", true
	case errors.Is(err, pack.ErrSignature):
		return "bad pack file", true
	case errors.As(err, &ve):
		return fmt.Sprintf("unknown pack file version %d", uint32(ve)), true
	case errors.Is(err, pack.ErrChecksum):
		return "final sha1 did not match", true
	case errors.Is(err, pack.ErrTooLarge):
		return "pack exceeds maximum allowed size", true
	case errors.Is(err, pack.ErrOffsetRange):
		return "offset value out of bound for delta base object", true
	case errors.Is(err, pack.ErrOffsetOverflow):
		return "offset value overflow for delta base object", true
	case errors.Is(err, pack.ErrSizeOverflow):
		return "object size too large for this platform", true
	case errors.As(err, &re):
		return "read error on input: " + re.Err.Error(), true
	case errors.As(err, &ce):
		return ce.Error(), true
	case errors.Is(err, context.Canceled):
		return "interrupted", true
	}
	return "", false
}

// writeFailure says what git says when writing a loose object fails (a
// full disk, an I/O error), by the step that failed.
func writeFailure(we *loose.WriteError) []Message {
	why := strerror(errno(we.Err))
	var ce *batch.CommitError
	switch {
	case we.Stage == loose.StageCreate && errors.Is(we.Err, fs.ErrPermission):
		return []Message{errorLine("insufficient permission for adding an object to repository database " + objectDatabase(we.Path)),
			fatal("failed to write object")}
	case we.Stage == loose.StageCreate:
		return []Message{errorLine("unable to create temporary file: " + why), fatal("failed to write object")}
	case we.Stage == loose.StageWrite:
		return []Message{fatal("unable to write loose object file: " + why)}
	case !errors.As(we.Err, &ce):
		return []Message{fatal(we.Err.Error())}
	case ce.Step == batch.StepSync:
		return []Message{fatal("fsync error on '" + ce.Path + "': " + why)}
	case ce.Step == batch.StepClose:
		return []Message{fatal("error when closing loose object file: " + why)}
	}
	return []Message{errorLine("unable to write file " + ce.Path + ": " + why), fatal("failed to write object")}
}

// errno is the system's error inside err: what C's strerror would name.
func errno(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// strerror renders an error as C's strerror does: "No space left on
// device" where Go says "no space left on device".
func strerror(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// errorLines are the texts git gives error() for an entry-level failure.
func errorLines(err error) []string {
	var (
		te *pack.TypeError
		ie *pack.InflateError
		be *BaseError
	)
	switch {
	case errors.As(err, &te):
		return []string{fmt.Sprintf("bad object type %d", te.Type)}
	case errors.As(err, &ie):
		s := fmt.Sprintf("inflate returned %d", ie.Code)
		if ie.Err != nil {
			// git prints zlib's message on a line of its own first.
			return []string{"inflate: data stream error (" + strings.TrimPrefix(ie.Err.Error(), "flate: ") + ")", s}
		}
		return []string{s}
	case errors.As(err, &be):
		return []string{fmt.Sprintf("failed to read delta-pack base object %s", be.ID)}
	}
	return []string{err.Error()}
}
