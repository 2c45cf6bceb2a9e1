package pack

import (
	"errors"
	"fmt"
)

// Errors in the structure of a pack stream. Each is sticky: once Next or
// Read returned one, every later call returns it again.
var (
	// ErrSignature means the stream does not start with "PACK".
	ErrSignature = errors.New("pack: bad pack file signature")
	// ErrChecksum means the trailer does not match the hash of the stream.
	ErrChecksum = errors.New("pack: trailer checksum mismatch")
	// ErrTooLarge means the stream is longer than ReaderOptions.MaxSize.
	ErrTooLarge = errors.New("pack: pack exceeds maximum allowed size")
	// ErrOffsetOverflow means an OFS_DELTA distance does not fit in 63 bits.
	ErrOffsetOverflow = errors.New("pack: offset value overflow for delta base object")
	// ErrOffsetRange means an OFS_DELTA distance points outside the stream.
	ErrOffsetRange = errors.New("pack: offset value out of bound for delta base object")
	// ErrSizeOverflow means an entry header declares a size beyond 63 bits.
	ErrSizeOverflow = errors.New("pack: object size too large")
)

// ErrFrame means a pack's header or trailer does not match its index
// (CheckFrame): git reads none of its objects.
var ErrFrame = errors.New("pack: frame does not match the index")

// Errors applying a delta.
var (
	// ErrDeltaBaseSize means the base's size differs from the delta header.
	ErrDeltaBaseSize = errors.New("pack: delta base size mismatch")
	// ErrDeltaOpcode means the delta holds the reserved opcode 0.
	ErrDeltaOpcode = errors.New("pack: unexpected delta opcode 0")
	// ErrDeltaCorrupt means a copy leaves the base, an insert leaves the
	// delta, or the result is not the size the header declares.
	ErrDeltaCorrupt = errors.New("pack: delta replay has gone wild")
)

// VersionError reports an unsupported pack version.
type VersionError uint32

func (e VersionError) Error() string {
	return fmt.Sprintf("pack: unknown pack file version %d", uint32(e))
}

// TypeError reports an entry whose type is 0 or 5. It is not sticky: Next
// continues right after the entry header, as git's unpack-objects -r does.
type TypeError struct {
	Offset int64
	Type   uint8
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("pack: bad object type %d at offset %d", e.Type, e.Offset)
}

// InflateError reports entry data that does not inflate to exactly the size
// its header declares. Code is the zlib result git would print: 1 when the
// data ended early (Z_STREAM_END), -5 when there is more data than declared
// (Z_BUF_ERROR), -3 for corrupt data (Z_DATA_ERROR). It is not sticky: Next
// continues where inflation stopped.
type InflateError struct {
	Offset int64 // offset of the entry
	Code   int
	Err    error // the decompressor's error for Code -3, else nil
}

func (e *InflateError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("pack: inflate returned %d at offset %d: %v", e.Code, e.Offset, e.Err)
	}
	return fmt.Sprintf("pack: inflate returned %d at offset %d", e.Code, e.Offset)
}

func (e *InflateError) Unwrap() error { return e.Err }

// CorruptError wraps a structural error with the offset where it was found.
type CorruptError struct {
	Offset int64
	Err    error
}

func (e *CorruptError) Error() string { return fmt.Sprintf("%v (offset %d)", e.Err, e.Offset) }

func (e *CorruptError) Unwrap() error { return e.Err }

// ReadError wraps an error of the underlying reader (not io.EOF).
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return "pack: read error on input: " + e.Err.Error() }

func (e *ReadError) Unwrap() error { return e.Err }
