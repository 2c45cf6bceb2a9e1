package upstream

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp/sideband"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// Pack is the answer to a fetch: the pack stream (side-band
// demultiplexed) and the lines about the shallow boundary.
type Pack struct {
	// Shallow and Unshallow are the answer's lines about the shallow
	// boundary, when Deepened: the request deepened.
	Shallow, Unshallow []object.ID
	Deepened           bool
	// Theirs are the commits at which the upstream itself is shallow.
	Theirs []object.ID

	in   *stickyReader
	t    transport.Transport
	conn *connWatch // what the answer is read from, under the side-band
}

// CutError means that the connection to the upstream ended in the middle
// of the answer — a network cut, the server gone — not that the pack it
// sent was bad: git says "unexpected disconnect while reading sideband
// packet" and dies with "early EOF".
type CutError struct {
	// Err is what the reader of the pack failed with.
	Err error
}

func (e *CutError) Error() string { return "early EOF" }

// Describe is git's line for a cut: "early EOF".
func (e *CutError) Describe(string) string { return e.Error() }

func (e *CutError) Unwrap() error { return e.Err }

// Cut returns err as a *CutError where the connection under the answer
// ended before it did (err is how the pack's reader failed), and err as
// it is otherwise: a pack cut short by the upstream's own end of the
// answer is a bad pack.
func (p *Pack) Cut(err error) error {
	if err == nil || p.conn == nil || p.conn.ended == nil {
		return err
	}
	if !p.t.Persistent() && p.conn.ended == io.EOF {
		// An HTTP answer that ended as its framing said: the server
		// sent no more, which makes the pack bad, not the network.
		return err
	}
	return &CutError{Err: err}
}

// watch returns r, remembering how it ended.
func (p *Pack) watch(r io.Reader) io.Reader {
	p.conn = &connWatch{r: r}
	return p.conn
}

// connWatch remembers the error (io.EOF included) its reader ended with.
type connWatch struct {
	r     io.Reader
	ended error
}

func (c *connWatch) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if err != nil && c.ended == nil {
		c.ended = err
	}
	return n, err
}

// Read reads the pack. A reader ahead of the unpacker may meet a channel-3
// error after the pack's trailer and drop it; the pack keeps it for
// Finish, so the error fails the fetch at any point, as in git.
func (p *Pack) Read(b []byte) (int, error) { return p.in.Read(b) }

// Finish ends a fetch whose pack is in: what follows the pack (a flush in
// side-band mode) must end cleanly, and so must the session.
func (p *Pack) Finish() error {
	if err := p.Drain(); err != nil {
		return err
	}
	return p.t.Close()
}

// Drain reads what follows the pack up to the end of the answer, which
// must end cleanly, with nothing more on the pack's band, and leaves the
// session open: over protocol v2 it then takes another command
// (Upload.Fetch). A byte after the pack is ErrJunk, at once: the rest of
// the answer is not read.
func (p *Pack) Drain() error {
	var b [1]byte
	for {
		n, err := p.in.Read(b[:])
		if n > 0 {
			p.in.err = ErrJunk // sticky: a later Drain fails too
			return ErrJunk
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readHead reads what a protocol v0 answer says before the pack, as git's
// fetch-pack reads it: when withShallow (the request deepened and the
// lines were not read in a round before), the shallow and unshallow lines
// up to a flush; then the acknowledgements of the haves, "ACK <id>[
// common| ready]" and "NAK", at least one. An answer that ends before a
// line is errNoPack.
func (p *Pack) readHead(in *bufio.Reader, f object.Format, withShallow bool) error {
	if _, err := in.Peek(1); err == io.EOF {
		return errNoPack
	}
	if withShallow {
		if err := p.readShallowLines(in, f); err != nil {
			return err
		}
	}
	var buf []byte
	for n := 0; ; n++ {
		if n > 0 && !ackNext(in) {
			return nil
		}
		pkt, err := transport.ReadPkt(in, &buf)
		line := bytes.TrimSuffix(pkt, []byte("\n"))
		switch {
		case err != nil:
			return err
		case line == nil:
			return errAckFlush
		case bytes.Equal(line, []byte("NAK")):
		case !bytes.HasPrefix(line, []byte("ACK ")):
			return notAck(string(line))
		default:
			if _, _, ok := parseIDPrefix(line[len("ACK "):], f); !ok {
				return notAck(string(line)) // get_ack's words
			}
		}
	}
}

// readShallowLines reads v0's shallow and unshallow lines up to a flush,
// in place of those read before (a stateless upstream sends them in the
// answer to every round).
func (p *Pack) readShallowLines(in *bufio.Reader, f object.Format) error {
	p.Shallow, p.Unshallow = nil, nil
	var buf []byte
	for {
		pkt, err := transport.ReadPkt(in, &buf)
		switch {
		case err != nil:
			return err
		case pkt == nil:
			return nil
		}
		if err := p.shallowLine(bytes.TrimSuffix(pkt, []byte("\n")), f); err != nil {
			return err
		}
	}
}

// shallowLine takes a "shallow <id>" or "unshallow <id>" line into the
// pack's lists. A bad id is an "invalid shallow line" or an "invalid
// unshallow line", in fetch-pack's words over v0 and v2 alike.
func (p *Pack) shallowLine(line []byte, f object.Format) error {
	var list *[]object.ID
	var hex []byte
	kind := "shallow"
	switch {
	case bytes.HasPrefix(line, []byte("shallow ")):
		list, hex = &p.Shallow, line[len("shallow "):]
	case bytes.HasPrefix(line, []byte("unshallow ")):
		list, hex = &p.Unshallow, line[len("unshallow "):]
		kind = "unshallow"
	default:
		return fmt.Errorf("expected shallow/unshallow, got %s", mask.Name(string(line)))
	}
	id, _, ok := parseIDPrefix(hex, f) // get_oid_hex: a tail is ignored
	if !ok {
		return fmt.Errorf("invalid %s line: %s", kind, mask.Name(string(line)))
	}
	*list = append(*list, id)
	return nil
}

// ackNext reports whether the next packet is an ACK or a NAK: the pack,
// raw ("PACK") or in side-band packets, never starts so.
func ackNext(in *bufio.Reader) bool {
	b, err := in.Peek(7)
	if err != nil {
		return false
	}
	if _, ok := transport.PktLen(b); !ok {
		return false
	}
	return string(b[4:]) == "ACK" || string(b[4:]) == "NAK"
}

// demux takes the pack out of the side-band of an answer to a request with
// caps, when it asked for one; the progress goes to progress.
func demux(r io.Reader, caps *capability.List, progress io.Writer) io.Reader {
	var d *sideband.Demuxer
	switch {
	case caps.Supports(capability.Sideband64k):
		d = sideband.NewDemuxer(sideband.Sideband64k, r)
	case caps.Supports(capability.Sideband):
		d = sideband.NewDemuxer(sideband.Sideband, r)
	default:
		return r
	}
	d.Progress = progress
	return d
}

// stickyReader returns the first error its reader gave, io.EOF included,
// on every later read: the side-band's flush ends the pack for good, even
// where the session goes on (protocol v2 over a stream waits for the next
// command).
type stickyReader struct {
	r   io.Reader
	err error
}

func (s *stickyReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	if err != nil {
		s.err = err
	}
	return n, err
}
