package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/object"
)

// RefSink takes the advertised refs one at a time, in the upstream's order,
// instead of a map: a list of a million refs then costs no more memory than
// one.
type RefSink interface {
	// Symref is told of a symbolic ref the upstream advertised (HEAD's
	// target, from the capabilities), before any ref.
	Symref(name, target string)
	// Ref takes one ref. name is only valid during the call; a peeled tag
	// comes as "<name>^{}" right after its tag.
	Ref(name []byte, id object.ID) error
}

// refSink is how a session hands on the refs it reads: ar holds the
// capabilities of the first line by then.
type refSink func(ar *packp.AdvRefs, name []byte, id plumbing.Hash) error

// Advertisement is an advertisement held whole: the refs of a
// receive-pack, which a push needs, or of a session that could not stream
// them.
type Advertisement struct {
	Symrefs  [][2]string // name and target
	Head     *object.ID  // HEAD's id, when advertised
	Refs     map[string]object.ID
	Peeled   map[string]object.ID // the peeled tags, by the tag's name
	Shallows []object.ID
}

// advertisementOf is go-git's advertisement as an Advertisement.
func advertisementOf(ar *packp.AdvRefs) *Advertisement {
	a := &Advertisement{Refs: make(map[string]object.ID, len(ar.References)), Peeled: map[string]object.ID{}, Shallows: ids(ar.Shallows)}
	for _, v := range ar.Capabilities.Get(capability.SymRef) {
		if from, to, ok := strings.Cut(v, ":"); ok {
			a.Symrefs = append(a.Symrefs, [2]string{from, to})
		}
	}
	if ar.Head != nil {
		h := idOf(*ar.Head)
		a.Head = &h
	}
	for name, h := range ar.References {
		if name != "HEAD" {
			a.Refs[name] = idOf(h)
		}
	}
	for name, h := range ar.Peeled {
		a.Peeled[name] = idOf(h)
	}
	return a
}

// ReadAdvertisement reads a protocol v0 ref advertisement from r, handing
// each ref to sink when there is one, else keeping it in the returned
// Advertisement. An empty repository's advertisement (a flush alone) gives
// an empty Advertisement.
func ReadAdvertisement(r *bufio.Reader, sink RefSink) (*Advertisement, error) {
	var rs refSink
	if sink != nil {
		rs = (&streamer{sink: sink}).ref
	}
	ar, err := readAdvertisement(r, rs)
	if errors.Is(err, errEmptyAdvertisement) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return advertisementOf(ar), nil
}

// errEmptyAdvertisement is an advertisement with no ref and no
// capabilities: git upload-pack's answer for an empty repository.
var errEmptyAdvertisement = errors.New("empty advertisement")

// readAdvertisement reads a protocol v0 ref advertisement (the pkt-lines up
// to the flush) from r. The capabilities of the first line, the id of HEAD
// and the shallow lines go into the returned AdvRefs; each ref goes to sink
// when there is one, else into its References and Peeled maps. An "ERR"
// line is a *pktline.ErrorLine; a stream that ends before the flush, a
// line that is not "<40 hex> <name>" or "shallow <40 hex>", is an error.
func readAdvertisement(r *bufio.Reader, sink refSink) (*packp.AdvRefs, error) {
	ar := packp.NewAdvRefs()
	var buf []byte
	first := true
	for {
		pkt, err := readPkt(r, &buf)
		if err == io.EOF {
			return nil, fmt.Errorf("the advertisement ended early: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return nil, err
		}
		line := bytes.TrimSuffix(pkt, []byte("\n"))
		switch {
		case pkt == nil: // flush
			if first {
				return ar, errEmptyAdvertisement
			}
			return ar, nil
		case first && bytes.HasPrefix(line, []byte("version ")):
			continue // "version 1": what follows is v0's
		case bytes.HasPrefix(line, []byte("shallow ")):
			id, ok := parseID(line[len("shallow "):])
			if !ok {
				return nil, malformed(line)
			}
			ar.Shallows = append(ar.Shallows, id)
			first = false
			continue
		}
		if first {
			first = false
			refPart, caps, _ := bytes.Cut(line, []byte{0})
			if err := ar.Capabilities.Decode(caps); err != nil {
				return nil, fmt.Errorf("bad capabilities in the advertisement: %w", err)
			}
			for _, f := range ar.Capabilities.Get(capability.ObjectFormat) {
				if f != "sha1" { // formatFromError reads the name from this
					return nil, fmt.Errorf("the advertisement uses object-format=%s", f)
				}
			}
			line = refPart
		}
		if len(line) < 42 || line[40] != ' ' {
			return nil, malformed(line)
		}
		id, ok := parseID(line[:40])
		if !ok {
			return nil, malformed(line)
		}
		name := line[41:]
		switch {
		case string(name) == "capabilities^{}": // an empty repository's capabilities
		case string(name) == "HEAD":
			head := id
			ar.Head = &head
			fallthrough
		case sink != nil:
			if sink != nil {
				if err := sink(ar, name, id); err != nil {
					return nil, err
				}
			}
		case bytes.HasSuffix(name, []byte("^{}")):
			ar.Peeled[string(name[:len(name)-3])] = id
		default:
			ar.References[string(name)] = id
		}
	}
}

// readPkt reads one pkt-line into *buf (grown as needed, reused) and
// returns its payload, nil for a flush, an "ERR" line as a
// *pktline.ErrorLine, io.EOF when r ends between lines. go-git's Scanner
// allocates for every line, which a million refs turn into garbage the
// collector may not keep up with on a busy machine.
func readPkt(r *bufio.Reader, buf *[]byte) ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("the advertisement ended inside a line: %w", err)
		}
		return nil, err
	}
	n := 0
	for _, c := range h {
		d, ok := unhex(c | 0x20) // pkt-line lengths may be upper case
		if !ok {
			return nil, fmt.Errorf("bad pkt-line length %q", cli.MaskName(string(h[:])))
		}
		n = n<<4 | int(d)
	}
	switch {
	case n == 0:
		return nil, nil
	case n < 4:
		return nil, fmt.Errorf("bad pkt-line length %q", h[:])
	}
	n -= 4
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	p := (*buf)[:n]
	if _, err := io.ReadFull(r, p); err != nil {
		return nil, fmt.Errorf("the advertisement ended inside a line: %w", io.ErrUnexpectedEOF)
	}
	if bytes.HasPrefix(p, []byte("ERR ")) {
		return nil, &pktline.ErrorLine{Text: strings.TrimSpace(string(p[4:]))}
	}
	return p, nil
}

// parseID reads 40 lower-case hex digits.
func parseID(b []byte) (plumbing.Hash, bool) {
	var id plumbing.Hash
	if len(b) != 40 {
		return id, false
	}
	for i := 0; i < 40; i += 2 {
		hi, ok1 := unhex(b[i])
		lo, ok2 := unhex(b[i+1])
		if !ok1 || !ok2 {
			return id, false
		}
		id[i/2] = hi<<4 | lo
	}
	return id, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// malformed is the error for a line that is not part of an advertisement;
// it quotes at most 80 bytes, masked.
func malformed(line []byte) error {
	if len(line) > 80 {
		line = line[:80]
	}
	return fmt.Errorf("malformed ref advertisement line '%s'", cli.MaskName(string(line)))
}
