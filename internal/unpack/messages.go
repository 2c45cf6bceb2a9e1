package unpack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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

// Describe returns the lines git prints for err and how it exits. Several
// failures print an error() line before the fatal one.
func Describe(err error) (lines []string, kind Kind) {
	var (
		te *pack.TypeError
		ie *pack.InflateError
		be *BaseError
		de *DeltaError
		se *StrictError
		ve pack.VersionError
		re *pack.ReadError
		ce *CollisionError
	)
	switch {
	case errors.As(err, &te), errors.As(err, &ie), errors.As(err, &be):
		for _, l := range errorLines(err) {
			lines = append(lines, "error: "+l)
		}
		return lines, Error
	case errors.Is(err, ErrRecovered):
		return nil, Error
	case errors.As(err, &de):
		var pre []string
		switch {
		case errors.Is(err, pack.ErrDeltaOpcode):
			pre = []string{"error: unexpected delta opcode 0"}
		case errors.Is(err, pack.ErrDeltaCorrupt):
			pre = []string{"error: delta replay has gone wild"}
		case errors.Is(err, ErrExpansion):
			pre = []string{"error: " + de.Err.Error()}
		}
		return append(pre, "fatal: failed to apply delta"), Fatal
	case errors.As(err, &se):
		for _, l := range se.Lines {
			lines = append(lines, "error: "+l)
		}
		return append(lines, "fatal: "+se.Msg), Fatal
	case errors.Is(err, io.ErrUnexpectedEOF):
		return []string{"fatal: early EOF"}, Fatal
	case errors.Is(err, pack.ErrSignature):
		return []string{"fatal: bad pack file"}, Fatal
	case errors.As(err, &ve):
		return []string{fmt.Sprintf("fatal: unknown pack file version %d", uint32(ve))}, Fatal
	case errors.Is(err, pack.ErrChecksum):
		return []string{"fatal: final sha1 did not match"}, Fatal
	case errors.Is(err, pack.ErrTooLarge):
		return []string{"fatal: pack exceeds maximum allowed size"}, Fatal
	case errors.Is(err, pack.ErrOffsetRange):
		return []string{"fatal: offset value out of bound for delta base object"}, Fatal
	case errors.Is(err, pack.ErrOffsetOverflow):
		return []string{"fatal: offset value overflow for delta base object"}, Fatal
	case errors.Is(err, pack.ErrSizeOverflow):
		return []string{"fatal: object size too large for this platform"}, Fatal
	case errors.As(err, &re):
		return []string{"fatal: read error on input: " + re.Err.Error()}, Fatal
	case errors.As(err, &ce):
		return []string{"fatal: " + ce.Error()}, Fatal
	case errors.Is(err, context.Canceled):
		return []string{"fatal: interrupted"}, Fatal
	}
	if lines := writeFailure(err); lines != nil {
		return lines, Fatal
	}
	return []string{"fatal: " + err.Error()}, Fatal
}

// writeFailure says what git says when writing a loose object fails (a
// full disk, an I/O error), or nil for another error.
func writeFailure(err error) []string {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &le) && strings.Contains(le.Old, "tmp_obj_"):
		return []string{"error: unable to write file " + le.New + ": " + strerror(le.Err), "fatal: failed to write object"}
	case !errors.As(err, &pe) || !strings.Contains(pe.Path, "tmp_obj_") && !strings.HasSuffix(filepath.Dir(pe.Path), "objects"):
		return nil
	}
	switch pe.Op {
	case "open", "mkdir":
		return []string{"error: unable to create temporary file: " + strerror(pe.Err), "fatal: failed to write object"}
	case "write":
		return []string{"fatal: unable to write loose object file: " + strerror(pe.Err)}
	case "sync_file_range", "fsync":
		return []string{"fatal: fsync error on '" + pe.Path + "': " + strerror(pe.Err)}
	case "close":
		return []string{"fatal: error when closing loose object file: " + strerror(pe.Err)}
	}
	return nil
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
