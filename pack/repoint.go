package pack

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/git-durable/git-durable/object"
)

// Repoint returns a copy of b, the .bitmap or .mtimes file (ext) of a
// pack, made for the pack whose checksum is sum: the pack checksum it
// records is sum, and its own trailer (the checksum of what precedes it)
// is computed again. Both files name objects by their position in the pack
// or in its index, never by offset: the copy is sound for a pack rewritten
// with the same objects in the same order (each broken copy replaced where
// it was), and for no other. A file whose signature or trailer is not its
// format's is an error.
//
// The layouts (git's Documentation/gitformat-pack): a .bitmap starts
// "BITM", a 2-byte version, 2 bytes of options, a 4-byte count, then the
// pack's checksum; an .mtimes starts "MTME" and a 4-byte version and hash
// id, and ends with the pack's checksum before its own. Both end with the
// checksum of the file before it.
func Repoint(b []byte, ext string, sum []byte, f object.Format) ([]byte, error) {
	hs := f.Size()
	if len(sum) != hs {
		return nil, fmt.Errorf("pack checksum of %d bytes, want %d", len(sum), hs)
	}
	var magic string
	var at int
	switch ext {
	case "bitmap":
		magic, at = "BITM", 12
	case "mtimes":
		magic, at = "MTME", len(b)-2*hs
	default:
		return nil, fmt.Errorf("no pack checksum in a .%s file", ext)
	}
	if len(b) < 12+2*hs || !bytes.HasPrefix(b, []byte(magic)) || at < 12 {
		return nil, fmt.Errorf("not a .%s file", ext)
	}
	h := f.NewChecksum()
	h.Write(b[:len(b)-hs])
	if !bytes.Equal(h.Sum(nil), b[len(b)-hs:]) {
		return nil, errors.New("." + ext + " file checksum mismatch")
	}
	out := bytes.Clone(b)
	copy(out[at:], sum)
	h.Reset()
	h.Write(out[:len(out)-hs])
	copy(out[len(out)-hs:], h.Sum(nil))
	return out, nil
}
