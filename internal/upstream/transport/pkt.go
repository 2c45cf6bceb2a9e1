package transport

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"

	"github.com/git-durable/git-durable/internal/mask"
)

// The packets with no payload: the lengths 0000, 0001 and 0002.
const (
	FlushPkt = iota + 1
	DelimPkt // protocol v2: between the sections of a message
	EndPkt   // protocol v2, stateless: the end of a response
)

// maxPayload bounds a pkt-line's payload as git's packet_read does: its
// buffer is LARGE_PACKET_MAX (65520) bytes, and a payload as long is a bad
// line length.
const maxPayload = 65520

// ReadPacket reads one pkt-line into *buf (grown as needed, reused) and
// returns its payload, or which packet without one it was (FlushPkt,
// DelimPkt, EndPkt); an "ERR" line is a *pktline.ErrorLine, and io.EOF
// says r ended between lines. A length git refuses is refused in its
// words. go-git's Scanner copies every line through a
// buffer of its own, and its ReadLine allocates one per line, which a
// million refs turn into garbage the collector may not keep up with on a
// busy machine.
func ReadPacket(r *bufio.Reader, buf *[]byte) ([]byte, int, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, 0, fmt.Errorf("the upstream's answer ended inside a line: %w", err)
		}
		return nil, 0, err
	}
	n, ok := PktLen(h[:])
	if !ok {
		return nil, 0, fmt.Errorf("protocol error: bad line length character: %s", mask.Name(string(h[:])))
	}
	switch {
	case n < 3:
		return nil, n + 1, nil
	case n < 4:
		return nil, 0, fmt.Errorf("protocol error: bad line length %d", n)
	case n-4 >= maxPayload:
		return nil, 0, fmt.Errorf("protocol error: bad line length %d", n-4)
	}
	n -= 4
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	p := (*buf)[:n]
	if p == nil {
		p = []byte{} // "0004", an empty line: not a flush
	}
	if _, err := io.ReadFull(r, p); err != nil {
		return nil, 0, fmt.Errorf("the upstream's answer ended inside a line: %w", io.ErrUnexpectedEOF)
	}
	if bytes.HasPrefix(p, []byte("ERR ")) {
		return nil, 0, &pktline.ErrorLine{Text: strings.TrimSpace(string(p[4:]))}
	}
	return p, 0, nil
}

// ReadPkt reads a pkt-line of protocol v0, where a flush (nil) is the
// only packet without a payload.
func ReadPkt(r *bufio.Reader, buf *[]byte) ([]byte, error) {
	p, special, err := ReadPacket(r, buf)
	switch {
	case err != nil:
		return nil, err
	case special == FlushPkt:
		return nil, nil
	case special != 0:
		return nil, fmt.Errorf("bad pkt-line length \"%04x\"", special-1)
	}
	return p, nil
}

// PktLen reads the four hex digits of a pkt-line's length from the start
// of h, as git's packet_length does: lower or upper case, nothing else.
func PktLen(h []byte) (int, bool) {
	if len(h) < 4 {
		return 0, false
	}
	n := 0
	for _, c := range h[:4] {
		d, ok := HexDigit(c)
		if !ok {
			return 0, false
		}
		n = n<<4 | int(d)
	}
	return n, true
}

// HexDigit is the value of a hex digit, lower or upper case: what git's
// hexval takes, in pkt-line lengths and in object ids alike.
func HexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// IsV2 reports, without taking it, whether the advertisement that in
// starts is protocol v2's: its first line is "version 2". Any other is
// v0's (or v1's), which a server sends that does not know v2.
func IsV2(in *bufio.Reader) (bool, error) {
	h, err := in.Peek(4)
	if err != nil && err != io.EOF {
		return false, err
	}
	n, ok := PktLen(h)
	if !ok || n != 4+len("version 2") && n != 4+len("version 2\n") {
		return false, nil
	}
	b, err := in.Peek(n)
	if err != nil && err != io.EOF {
		return false, err
	}
	// git compares the line with its newline taken off, and reads the
	// length's digits in either case.
	return string(bytes.TrimSuffix(b[4:], []byte("\n"))) == "version 2", nil
}
