package pack

import (
	"encoding/binary"
)

// HeaderSize is the length of the header that starts every pack.
const HeaderSize = 12

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
