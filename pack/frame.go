package pack

import (
	"bytes"
	"fmt"
	"io"

	"github.com/git-durable/git-durable/object"
)

// CheckFrame checks the frame of the pack of size bytes that r reads
// against its index x, as git does before it reads any object of a pack
// (packfile.c, open_packed_git_1): the header counts as many objects as
// the index lists, and the trailer is the checksum the index records. A
// pack cut short, or another pack under the index's name, fails: git uses
// none of its objects. The error says why in git's words.
func CheckFrame(r io.ReaderAt, size int64, x *Index, f object.Format) error {
	hs := int64(f.Size())
	if size < HeaderSize+hs {
		return fmt.Errorf("%w: packfile is too short (%d bytes)", ErrFrame, size)
	}
	var head [HeaderSize]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return err
	}
	h, err := ParseHeader(head[:])
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFrame, err)
	}
	if int(h.Count) != x.Count() {
		return fmt.Errorf("%w: packfile claims to have %d objects while index indicates %d objects", ErrFrame, h.Count, x.Count())
	}
	trailer := make([]byte, hs)
	if _, err := r.ReadAt(trailer, size-hs); err != nil {
		return err
	}
	if !bytes.Equal(trailer, x.PackChecksum()) {
		return fmt.Errorf("%w: packfile does not match index", ErrFrame)
	}
	return nil
}
