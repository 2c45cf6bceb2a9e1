package object

import (
	"encoding/hex"
	"errors"
)

// MaxIDSize is the size of the largest id (SHA-256).
const MaxIDSize = 32

// ID is an object id of either format. The zero ID is the null id of no
// format. IDs are comparable and can be used as map keys.
type ID struct {
	b [MaxIDSize]byte
	n uint8
}

// ErrBadID is returned for a malformed hexadecimal or raw object id.
var ErrBadID = errors.New("object: malformed object id")

// IDFromBytes returns the id whose raw bytes are b (20 or 32 bytes).
func IDFromBytes(b []byte) (ID, error) {
	var id ID
	if !id.SetBytes(b) {
		return id, ErrBadID
	}
	return id, nil
}

// SetBytes makes id the id whose raw bytes are b (20 or 32 bytes) and
// reports whether b had one of those sizes; otherwise id is the zero ID.
// It fills id where it is, without the copies of a returned ID (as
// IDFromBytes returns it): a clone's connectivity check sets one for each
// of millions of tree entries.
func (id *ID) SetBytes(b []byte) bool {
	switch len(b) {
	case 20:
		*(*[20]byte)(id.b[:20]) = [20]byte(b)
		*(*[MaxIDSize - 20]byte)(id.b[20:]) = [MaxIDSize - 20]byte{}
	case 32:
		id.b = [32]byte(b)
	default:
		*id = ID{}
		return false
	}
	id.n = uint8(len(b))
	return true
}

// ParseID parses a 40- or 64-digit hexadecimal id.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 40 && len(s) != 64 {
		return id, ErrBadID
	}
	if _, err := hex.Decode(id.b[:len(s)/2], []byte(s)); err != nil {
		return ID{}, ErrBadID
	}
	id.n = uint8(len(s) / 2)
	return id, nil
}

// Bytes returns the raw bytes of the id; the slice aliases id.
func (id *ID) Bytes() []byte { return id.b[:id.n] }

// Size returns the number of raw bytes in the id (0 for the zero ID).
func (id ID) Size() int { return int(id.n) }

// IsZero reports whether id is the zero ID.
func (id ID) IsZero() bool { return id.n == 0 }

// String returns the id in lower-case hexadecimal.
func (id ID) String() string { return hex.EncodeToString(id.b[:id.n]) }

// Shard returns the two hexadecimal digits of the fan-out directory of a
// loose object ("ab" for "ab12…") and the rest of the name.
func (id ID) Shard() (dir, rest string) {
	s := id.String()
	return s[:2], s[2:]
}

// Compare orders ids by their raw bytes, as pack indexes do.
func (id ID) Compare(o ID) int {
	a, b := id.b[:id.n], o.b[:o.n]
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}
