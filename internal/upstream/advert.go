package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/upstream/transport"
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
	// Format is told of the object format of the upstream's ids as soon
	// as it is known, before any symref or ref.
	Format(f object.Format)
}

// Advertisement is an advertisement held whole: the refs of a
// receive-pack, which a push needs.
type Advertisement struct {
	Symrefs  [][2]string // name and target
	Head     *object.ID  // HEAD's id, when advertised
	Refs     map[string]object.ID
	Peeled   map[string]object.ID // the peeled tags, by the tag's name
	Shallows []object.ID
}

// advert is what a protocol v0 advertisement said: its capabilities, HEAD,
// the shallow lines, and the refs unless a sink took them.
type advert struct {
	caps     capability.List
	format   object.Format
	shallows []object.ID
	refs     int // the refs read, HEAD included
	kept     *Advertisement
}

// errEmptyAdvertisement is an advertisement with no ref and no
// capabilities: git upload-pack's answer for an empty repository.
var errEmptyAdvertisement = errors.New("empty advertisement")

// ReadAdvertisement reads a protocol v0 ref advertisement from r, handing
// each ref to sink when there is one, else keeping it in the returned
// Advertisement. An empty repository's advertisement (a flush alone) gives
// an empty Advertisement.
func ReadAdvertisement(r *bufio.Reader, sink RefSink) (*Advertisement, error) {
	a, err := readAdvertisement(r, sink)
	if errors.Is(err, errEmptyAdvertisement) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return a.kept, nil
}

// readAdvertisement reads a protocol v0 ref advertisement (the pkt-lines up
// to the flush) from r. Each ref goes to sink when there is one, else into
// the advert's kept Advertisement. An "ERR" line is a *pktline.ErrorLine;
// a stream that ends before the flush, a line that is not "<hex id>
// <name>" or "shallow <hex id>" with the ids of the advertised object
// format, is an error.
func readAdvertisement(r *bufio.Reader, sink RefSink) (*advert, error) {
	a := &advert{format: object.SHA1, kept: &Advertisement{Refs: map[string]object.ID{}, Peeled: map[string]object.ID{}}}
	var buf []byte
	first, told := true, false
	for {
		pkt, err := transport.ReadPkt(r, &buf)
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
				return a, errEmptyAdvertisement
			}
			return a, nil
		case first && bytes.HasPrefix(line, []byte("version ")):
			continue // "version 1": what follows is v0's
		case bytes.HasPrefix(line, []byte("shallow ")):
			id, _, ok := parseIDPrefix(line[len("shallow "):], a.format) // get_oid_hex: a tail is ignored
			if !ok {
				return nil, fmt.Errorf("protocol error: expected shallow sha-1, got '%s'", quoted(line[len("shallow "):]))
			}
			a.shallows = append(a.shallows, id)
			a.kept.Shallows = a.shallows
			first = false
			continue
		}
		if first {
			first = false
			refPart, caps, _ := bytes.Cut(line, []byte{0})
			if err := a.setCaps(caps); err != nil {
				return nil, err
			}
			if sink != nil {
				sink.Format(a.format)
			}
			line = refPart
		}
		if err := a.ref(line, sink, &told); err != nil {
			return nil, err
		}
	}
}

// ref takes one "<hex id> <name>" line of the advertisement: to sink when
// there is one (after the symrefs, the first time: told), else into the
// kept Advertisement.
func (a *advert) ref(line []byte, sink RefSink, told *bool) error {
	hexLen := 2 * a.format.Size()
	if len(line) < hexLen+2 || line[hexLen] != ' ' {
		return malformed(line)
	}
	id, ok := parseID(line[:hexLen], a.format)
	if !ok {
		return malformed(line)
	}
	name := line[hexLen+1:]
	if string(name) == "capabilities^{}" {
		return nil // an empty repository's capabilities
	}
	a.refs++
	if sink == nil {
		a.keep(name, id)
		return nil
	}
	if !*told {
		*told = true
		for _, s := range a.kept.Symrefs {
			sink.Symref(s[0], s[1])
		}
	}
	return sink.Ref(name, id)
}

// setCaps decodes the capabilities of the first line, and the object
// format of the ids from the first on.
func (a *advert) setCaps(caps []byte) error {
	capability.DecodeList(caps, &a.caps)
	f, err := serverFormat(&a.caps)
	if err != nil {
		return err
	}
	a.format = f
	for _, v := range a.caps.Get(capability.SymRef) {
		if from, to, ok := strings.Cut(v, ":"); ok {
			a.kept.Symrefs = append(a.kept.Symrefs, [2]string{from, to})
		}
	}
	return nil
}

// keep records a ref in the kept Advertisement.
func (a *advert) keep(name []byte, id object.ID) {
	switch {
	case string(name) == "HEAD":
		a.kept.Head = &id
	case bytes.HasSuffix(name, []byte("^{}")):
		a.kept.Peeled[string(name[:len(name)-3])] = id
	default:
		a.kept.Refs[string(name)] = id
	}
}

// empty reports whether an upload-pack's advertisement named no ref: git
// 2.41 and later answer for an empty repository with the capabilities
// alone, on a "capabilities^{}" line.
func (a *advert) empty() bool { return a.refs == 0 }

// malformed is the error for a line that is not part of an advertisement,
// in connect.c's words: a ref whose id is not one of the advertised
// format's (a SHA-1 id in a SHA-256 advertisement), or no ref at all.
func malformed(line []byte) error {
	return fmt.Errorf("protocol error: unexpected '%s'", quoted(line))
}

// maxQuoted bounds the bytes of a line an error quotes: a SHA-256 ref of
// ls-refs with its peeled id and a name of a hundred bytes, whole.
const maxQuoted = 256

// quoted is a line as an error quotes it: at most maxQuoted bytes,
// masked.
func quoted(line []byte) string {
	if len(line) > maxQuoted {
		line = line[:maxQuoted]
	}
	return mask.Name(string(line))
}
