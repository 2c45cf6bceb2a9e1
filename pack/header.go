package pack

import (
	"bytes"
	"encoding/binary"
	"io"
)

// HeaderSize is the length of the header that starts every pack.
const HeaderSize = 12

// Header is the start of a pack stream.
type Header struct {
	Version uint32
	Count   uint32 // number of entries the stream declares
}

// ParseHeader reads the 12 bytes that start a pack: "PACK", the version
// (2 or 3) and the number of entries, big-endian. A short b or another
// signature is ErrSignature; another version is a VersionError.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize || string(b[:4]) != "PACK" {
		return Header{}, ErrSignature
	}
	v := binary.BigEndian.Uint32(b[4:])
	if v != 2 && v != 3 {
		return Header{}, VersionError(v)
	}
	return Header{Version: v, Count: binary.BigEndian.Uint32(b[8:])}, nil
}

// AppendHeader appends the 12 header bytes of h to dst. It writes any
// version h names; ParseHeader is what refuses the ones git does not read.
func AppendHeader(dst []byte, h Header) []byte {
	dst = append(dst, "PACK"...)
	dst = binary.BigEndian.AppendUint32(dst, h.Version)
	return binary.BigEndian.AppendUint32(dst, h.Count)
}

// PeekHeader reads the header at the start of the stream r and returns it
// with a reader that still yields the whole stream, header included: for a
// choice made before the pack is read (keep it or explode it). A bad or
// short header is ParseHeader's error, left for the pack's reader to meet
// again.
func PeekHeader(r io.Reader) (Header, io.Reader, error) {
	var b [HeaderSize]byte
	n, _ := io.ReadFull(r, b[:])
	h, err := ParseHeader(b[:n])
	return h, io.MultiReader(bytes.NewReader(b[:n]), r), err
}
