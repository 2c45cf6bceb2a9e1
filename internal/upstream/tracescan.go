package upstream

import (
	"bufio"
	"bytes"
	"context"
	"io"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// traced is a Transport whose packets, both ways, go to a PacketTrace as
// well. The bytes are taken as they pass, whatever reads them: the
// protocol above reads what it read before, in the same order.
type traced struct {
	transport.Transport
	t *PacketTrace
	// The last answer reader the transport returned, and the one given
	// in its place: a stream's answers follow each other on one reader,
	// and what the wrapper read ahead belongs to the next answer.
	inner, outer *bufio.Reader
}

// traceTransport returns t tracing to pt, or t itself when there is no
// trace.
func traceTransport(t transport.Transport, pt *PacketTrace) transport.Transport {
	if pt == nil {
		return t
	}
	if rt, ok := t.(transport.RequestTracer); ok {
		rt.TraceRequest(&packetScan{t: pt, dir: '>'})
	}
	return &traced{Transport: t, t: pt}
}

func (tr *traced) Handshake(ctx context.Context, service string, version int, read transport.Advertised) error {
	return tr.Transport.Handshake(ctx, service, version, func(in *bufio.Reader) (int, error) {
		return read(tr.answer(in))
	})
}

func (tr *traced) Request(req io.Reader, last bool) (*bufio.Reader, error) {
	in, err := tr.Transport.Request(io.TeeReader(req, &packetScan{t: tr.t, dir: '>'}), last)
	if err != nil {
		return nil, err
	}
	return tr.answer(in), nil
}

// answer is the reader the protocol reads in from, tracing as it reads.
func (tr *traced) answer(in *bufio.Reader) *bufio.Reader {
	if in != tr.inner {
		tr.inner = in
		tr.outer = bufio.NewReaderSize(io.TeeReader(in, &packetScan{t: tr.t, dir: '<'}), 64<<10)
	}
	return tr.outer
}

// packetScan cuts the bytes written to it into pkt-lines and traces each,
// as git's packet_read and packet_write trace them. It stops at what is
// not a pkt-line (a pack sent bare after the last line, a bad length) and
// never fails the stream it watches.
type packetScan struct {
	t    *PacketTrace
	dir  byte
	head []byte // the length digits read so far
	body []byte // the payload read so far
	need int    // the payload's length, once head is whole
	bare bool   // no more pkt-lines
	pack bool   // inside a sidebanded pack: band 1 is pack data
	uris bool   // inside a packfile-uris section
}

func (s *packetScan) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && !s.bare {
		if len(s.head) < 4 {
			k := min(4-len(s.head), len(p))
			s.head, p = append(s.head, p[:k]...), p[k:]
			if len(s.head) < 4 {
				break
			}
			size, ok := transport.PktLen(s.head)
			switch {
			case !ok || size == 3 || size-4 >= 65520:
				s.bare = true
				continue
			case size < 3:
				s.special(size)
				continue
			}
			s.need = size - 4
		}
		k := min(s.need-len(s.body), len(p))
		s.body, p = append(s.body, p[:k]...), p[k:]
		if len(s.body) == s.need {
			s.payload(s.body)
			s.head, s.body = s.head[:0], s.body[:0]
		}
	}
	return n, nil
}

// special traces a flush (0), a delim (1) or a response end (2).
func (s *packetScan) special(size int) {
	s.head = s.head[:0]
	s.uris = false
	s.t.packet(s.dir, []byte{'0', '0', '0', byte('0' + size)})
}

// payload traces one line, as much of it as git shows.
func (s *packetScan) payload(p []byte) {
	switch {
	case s.pack:
		if len(p) > 0 && p[0] == 1 {
			return
		}
	case bytes.HasPrefix(p, []byte("\x01PACK")):
		s.pack = true
		p = []byte("PACK ...")
	case bytes.HasPrefix(p, []byte("PACK")):
		s.bare = true
		p = []byte("PACK ...")
	case s.uris && s.t.redact:
		p = redactURIPath(p)
	case string(bytes.TrimSuffix(p, []byte("\n"))) == "packfile-uris":
		s.uris = true
	}
	s.t.packet(s.dir, p)
}

// redactURIPath replaces the path of a packfile URI line ("<pack hash>
// <uri>") with "<redacted>", as git's trace does: what follows the first
// slash after "://".
func redactURIPath(p []byte) []byte {
	h := 0
	for h < len(p) && (p[h] >= '0' && p[h] <= '9' || p[h] >= 'a' && p[h] <= 'f' || p[h] >= 'A' && p[h] <= 'F') {
		h++
	}
	if h != 40 && h != 64 || h == len(p) || p[h] != ' ' {
		return p
	}
	mark := bytes.Index(p[h+1:], []byte("://"))
	if mark < 0 {
		return p
	}
	from := h + 1 + mark + 3
	slash := bytes.IndexByte(p[from:], '/')
	if slash < 0 || from+slash+1 >= len(p) {
		return p
	}
	out := append([]byte{}, p[:from+slash+1]...)
	return append(out, "<redacted>"...)
}
