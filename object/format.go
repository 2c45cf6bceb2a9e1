package object

import (
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"strconv"

	"github.com/git-durable/git-durable/internal/sha1dc"
	"github.com/pjbgf/sha1cd"
)

// Format is a repository's object format: the hash function that names its
// objects and checks its packs.
type Format uint8

// The two object formats git knows.
const (
	SHA1   Format = 1
	SHA256 Format = 2
)

// ErrCollision is returned when the collision-detecting SHA-1 sees the marks
// of a collision attack in an object, as git's SHA1DC does.
var ErrCollision = errors.New("object: SHA-1 collision attack detected")

// ParseFormat returns the format git calls name ("sha1" or "sha256").
func ParseFormat(name string) (Format, error) {
	switch name {
	case "sha1", "":
		return SHA1, nil
	case "sha256":
		return SHA256, nil
	}
	return 0, fmt.Errorf("object: unknown object format %q", name)
}

// String returns git's name of the format.
func (f Format) String() string {
	if f == SHA256 {
		return "sha256"
	}
	return "sha1"
}

// Size returns the length of an id in bytes.
func (f Format) Size() int {
	if f == SHA256 {
		return 32
	}
	return 20
}

// New returns a fresh hash of the format. For SHA-1 it is the
// collision-detecting implementation; use Hasher.Sum to learn whether it saw
// a collision.
func (f Format) New() hash.Hash {
	if f == SHA256 {
		return sha256.New()
	}
	return sha1dc.New()
}

// NewChecksum returns a fresh hash of the format for the checksum of a
// file — a pack's or an index's trailer — where no object is named and so
// no collision is to be detected: plain SHA-1, several times faster, as
// git itself checksums its files since 2.48 (its "unsafe" hash).
func (f Format) NewChecksum() hash.Hash {
	if f == SHA256 {
		return sha256.New()
	}
	return sha1.New()
}

// Hasher computes object ids. It is not safe for concurrent use; Reset
// between objects.
type Hasher struct {
	h   hash.Hash
	f   Format
	buf [MaxIDSize]byte
}

// NewHasher returns a Hasher for format f.
func (f Format) NewHasher() *Hasher { return &Hasher{h: f.New(), f: f} }

// Begin resets the hasher and writes the object header "<type> <size>\x00".
func (h *Hasher) Begin(t Type, size int64) {
	h.h.Reset()
	var hdr [32]byte
	h.h.Write(Header(hdr[:0], t, size))
}

// Write adds object data to the hash.
func (h *Hasher) Write(p []byte) (int, error) { return h.h.Write(p) }

// Sum returns the id of what was written since Begin. For SHA-1 it returns
// ErrCollision when the data carries a collision attack.
func (h *Hasher) Sum() (ID, error) {
	var id ID
	if cr, ok := h.h.(sha1cd.CollisionResistantHash); ok {
		sum, col := cr.CollisionResistantSum(h.buf[:0])
		id.n = uint8(copy(id.b[:], sum))
		if col {
			return id, ErrCollision
		}
		return id, nil
	}
	id.n = uint8(copy(id.b[:], h.h.Sum(h.buf[:0])))
	return id, nil
}

// Sum computes the id of an object of type t holding data.
func (f Format) Sum(t Type, data []byte) (ID, error) {
	h := f.NewHasher()
	h.Begin(t, int64(len(data)))
	h.Write(data)
	return h.Sum()
}

// Header appends "<type> <size>\x00" to dst.
func Header(dst []byte, t Type, size int64) []byte {
	dst = append(dst, t.String()...)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, size, 10)
	return append(dst, 0)
}
