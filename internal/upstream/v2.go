package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/object"
)

// v2 is what a protocol v2 server advertised (gitprotocol-v2): its
// capabilities, one a line, and the object format they name.
type v2 struct {
	caps   capability.List
	format object.Format
}

// isV2 reports whether the advertisement that in starts is protocol v2's:
// its first line is "version 2". Any other is protocol v0's (or v1's), which
// a server that does not know v2 sends whatever the client asked for. A
// read that fails is the advertisement's failure.
func isV2(in *bufio.Reader) (bool, error) {
	const line = "000eversion 2\n"
	b, err := in.Peek(len(line))
	if err != nil && err != io.EOF {
		return false, err
	}
	return string(b) == line, nil
}

// readV2 reads a capability advertisement: "version 2", then key[=value]
// lines up to a flush. A server must offer ls-refs and fetch; its
// object-format, when it names one, must be one git knows.
func readV2(in *bufio.Reader) (*v2, error) {
	var buf []byte
	if _, err := readPkt(in, &buf); err != nil { // "version 2"
		return nil, err
	}
	a := &v2{format: object.SHA1}
	for {
		p, err := readPkt(in, &buf)
		if err == io.EOF {
			return nil, fmt.Errorf("the capability advertisement ended early: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return nil, err
		}
		if p == nil {
			break
		}
		key, value, _ := strings.Cut(string(bytes.TrimSuffix(p, []byte("\n"))), "=")
		a.caps.Add(key, strings.Fields(value)...)
	}
	for _, c := range []string{"ls-refs", "fetch"} {
		if !a.caps.Supports(c) {
			return nil, fmt.Errorf("server doesn't support '%s'", c)
		}
	}
	f, err := serverFormat(&a.caps)
	if err != nil {
		return nil, err
	}
	a.format = f
	return a, nil
}

// feature reports whether the server's capability cmd (ls-refs, fetch)
// offers the feature, as in "fetch=shallow filter".
func (a *v2) feature(cmd, feature string) bool {
	for _, v := range a.caps.Get(cmd) {
		if v == feature {
			return true
		}
	}
	return false
}

// command encodes a v2 request: the command, the capabilities git sends
// with each (its agent and object format, when the server named them), a
// delim, the arguments and a flush.
func (a *v2) command(name string, args packp.CommandArgs) (*bytes.Buffer, error) {
	req := &packp.CommandRequest{Command: name, Args: args}
	if a.caps.Supports(capability.Agent) {
		req.Capabilities.Set(capability.Agent, agent)
	}
	if a.caps.Supports(capability.ObjectFormat) {
		req.Capabilities.Set(capability.ObjectFormat, a.format.String())
	}
	var b bytes.Buffer
	return &b, req.Encode(&b)
}

// lsRefs lists the refs as git's ls-remote and fetch ask for them over v2
// (peel, symrefs, unborn when offered; no ref-prefix: the helper lists
// everything, as with v0) and hands each to sink as its line is read.
func (a *v2) lsRefs(w wire, sink RefSink) error {
	req, err := a.command("ls-refs", &packp.LsRefsArgs{Peel: true, Symrefs: true, Unborn: a.feature("ls-refs", "unborn")})
	if err != nil {
		return err
	}
	in, err := w.send(req, false)
	if err != nil {
		return err
	}
	return readRefsV2(in, a.format, sink)
}

// readRefsV2 reads an ls-refs answer, "<id> <name>[ symref-target:<t>][
// peeled:<id>]" lines up to a flush, as connect.c's process_ref_v2 reads
// them: a symref target goes to sink.Symref before its ref, a peeled tag
// after it as "<name>^{}". An unborn HEAD ("unborn HEAD symref-target:…")
// is not passed on: the helper protocol cannot say it (git's clone dies on
// a symref whose target is not listed). Nothing is kept: a million refs
// cost no more than one.
func readRefsV2(in *bufio.Reader, f object.Format, sink RefSink) error {
	var buf, peeledName []byte
	for {
		p, err := readPkt(in, &buf)
		if err == io.EOF {
			return fmt.Errorf("the ls-refs answer ended early: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return err
		}
		if p == nil {
			return nil
		}
		line := bytes.TrimSuffix(p, []byte("\n"))
		head, rest, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			return invalidRef(line)
		}
		name, attrs, _ := bytes.Cut(rest, []byte(" "))
		if string(head) == "unborn" {
			continue
		}
		id, ok := parseID(head, f)
		if !ok {
			return invalidRef(line)
		}
		var peeled object.ID
		for len(attrs) > 0 {
			var attr []byte
			attr, attrs, _ = bytes.Cut(attrs, []byte(" "))
			switch {
			case bytes.HasPrefix(attr, []byte("symref-target:")):
				sink.Symref(string(name), string(attr[len("symref-target:"):]))
			case bytes.HasPrefix(attr, []byte("peeled:")):
				if peeled, ok = parseID(attr[len("peeled:"):], f); !ok {
					return invalidRef(line)
				}
			}
		}
		if err := sink.Ref(name, id); err != nil {
			return err
		}
		if !peeled.IsZero() {
			peeledName = append(append(peeledName[:0], name...), "^{}"...)
			if err := sink.Ref(peeledName, peeled); err != nil {
				return err
			}
		}
	}
}

// invalidRef is git's words for a line of ls-refs it cannot read; the line
// is quoted as errors quote it.
func invalidRef(line []byte) error {
	return fmt.Errorf("invalid ls-refs response: %s", quoted(line))
}

// fetchV2 asks for the pack over protocol v2: the wants, the haves and
// "done" in one request (thin-pack and ofs-delta always, include-tag and
// no-progress as git's options say, the shallow lines and deepening when
// the server's fetch offers "shallow", the filter when it offers
// "filter"), and returns the answer once the sections before the pack are
// read.
func (u *Upload) fetchV2(req *FetchRequest) (*Pack, error) {
	a := u.v2
	args := &packp.FetchArgs{
		Wants: hashes(req.Wants, a.format), Haves: hashes(req.Haves, a.format), Done: true,
		ThinPack: true, OFSDelta: true, IncludeTag: req.IncludeTag, NoProgress: req.NoProgress,
	}
	// fetch-pack's add_shallow_requests: with "shallow", v2's fetch takes
	// every deepening argument.
	if len(req.Shallows) > 0 || req.deepen() {
		if !a.feature("fetch", "shallow") {
			return nil, errors.New("Server does not support shallow requests")
		}
		args.Shallows = hashes(req.Shallows, a.format)
		args.Deepen, args.DeepenRelative = req.Depth, req.DeepenRelative
		args.DeepenSince, args.DeepenNot = req.DeepenSince, req.DeepenNot
	}
	if req.Only {
		if a.feature("fetch", "shallow") {
			args.Deepen = 1
		}
		if a.feature("fetch", "filter") {
			args.Filter = packp.Filter("tree:0")
		}
	}
	switch {
	case req.Filter == "":
	case a.feature("fetch", "filter"):
		args.Filter = packp.Filter(req.Filter)
	default:
		u.r.warn(filterIgnored)
	}
	body, err := a.command("fetch", args)
	if err != nil {
		return nil, err
	}
	in, err := u.w.send(body, false)
	if err != nil {
		return nil, err
	}
	p := &Pack{w: u.w}
	if err := p.readSections(in, a.format); err != nil {
		if err = u.w.fail(err); errors.Is(err, errNoPack) {
			return nil, fmt.Errorf("'%s' sent no pack", u.r.URL)
		}
		return nil, err
	}
	// fetch-pack's receive_shallow_info: the lines answer the deepening,
	// or an unshallow makes them do so; else they say where the upstream
	// itself is shallow, as v0's advertisement does.
	p.Deepened = req.deepen() || len(p.Unshallow) > 0
	if req.Only {
		p.Shallow, p.Unshallow = nil, nil // the cut of "deepen 1", no boundary
	} else if !p.Deepened {
		p.Theirs, p.Shallow = p.Shallow, nil
	}
	var caps capability.List
	caps.Set(capability.Sideband64k) // a v2 pack always comes in side-band-64k
	p.in = &stickyReader{r: demux(in, &caps, req.Progress)}
	return p, nil
}

// readSections reads the sections of a v2 answer to a fetch that sent
// "done", up to the pack, as git's do_fetch_pack_v2 reads them, in their
// order: shallow-info (shallow and unshallow lines, then a delim); then
// "packfile". wanted-refs and packfile-uris are refused: the helper asks
// for neither (git would fetch the URIs it was sent unasked; a pack it
// does not have makes the closure incomplete). An answer that ends before
// a line is errNoPack.
func (p *Pack) readSections(in *bufio.Reader, f object.Format) error {
	var buf []byte
	for section := 0; ; section++ {
		pkt, special, err := readPacket(in, &buf)
		switch {
		case err == io.EOF && section == 0:
			return errNoPack
		case err != nil:
			return err
		case special != 0:
			return fmt.Errorf("expected 'packfile', received a %s packet", specialName(special))
		}
		header := string(bytes.TrimSuffix(pkt, []byte("\n")))
		switch {
		case header == "packfile":
			return nil
		case header == "shallow-info" && section == 0:
			if err := p.readShallowInfo(in, f, &buf); err != nil {
				return err
			}
		case header == "wanted-refs", header == "packfile-uris":
			return fmt.Errorf("the upstream sent a %s section, which the helper did not ask for", header)
		default:
			return fmt.Errorf("expected 'packfile', received '%s'", cli.MaskName(header))
		}
	}
}

// readShallowInfo reads the lines of a shallow-info section, up to the
// delim that ends it.
func (p *Pack) readShallowInfo(in *bufio.Reader, f object.Format, buf *[]byte) error {
	for {
		pkt, special, err := readPacket(in, buf)
		switch {
		case err != nil:
			return err
		case special == delimPkt:
			return nil
		case special != 0:
			return fmt.Errorf("error processing shallow info: a %s packet", specialName(special))
		}
		line := bytes.TrimSuffix(pkt, []byte("\n"))
		var list *[]object.ID
		var hex []byte
		switch {
		case bytes.HasPrefix(line, []byte("shallow ")):
			list, hex = &p.Shallow, line[len("shallow "):]
		case bytes.HasPrefix(line, []byte("unshallow ")):
			list, hex = &p.Unshallow, line[len("unshallow "):]
		default:
			return fmt.Errorf("expected shallow/unshallow, got %s", cli.MaskName(string(line)))
		}
		id, ok := parseID(hex, f)
		if !ok {
			return fmt.Errorf("invalid shallow line: %s", cli.MaskName(string(line)))
		}
		*list = append(*list, id)
	}
}

// specialName names a packet without a payload.
func specialName(special int) string {
	return [...]string{flushPkt: "flush", delimPkt: "delim", endPkt: "response-end"}[special]
}

// ReadLsRefs reads a protocol v2 ls-refs answer of ids of format f from
// r, handing each ref to sink as readRefsV2 does.
func ReadLsRefs(r *bufio.Reader, f object.Format, sink RefSink) error {
	sink.Format(f)
	return readRefsV2(r, f, sink)
}
