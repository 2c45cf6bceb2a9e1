package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"
	"github.com/go-git/go-git/v6/plumbing/protocol/capability"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// fetch asks for the pack over protocol v2 (thin-pack and ofs-delta
// always, include-tag and no-progress as git's options say, the shallow
// lines and deepening when the server's fetch offers "shallow", the filter
// when it offers "filter"), negotiating as git's fetch-pack does: each
// request the wants, the haves acknowledged so far and a round of new
// ones, answered with acknowledgements, until the upstream says "ready"
// and sends the pack in the same answer, or the haves run out or go
// unacknowledged and a request says "done". It returns the answer once
// the sections before the pack are read.
func (a *v2) fetch(u *Upload, req *FetchRequest) (*Pack, error) {
	u.r.promisorRefused(a)
	g := newNegotiation(req.Haves, true)
	g.v2 = true
	g.trace = roundTrace{t: u.r.o.Trace2, category: "negotiation_v2"}
	defer g.trace.end()
	var in *bufio.Reader
	for {
		g.trace.round()
		// send_fetch_request's test: no haves left, or an acknowledgement
		// seen and 256 haves in vain with this round's.
		haves := g.round()
		done := len(haves) == 0 || g.gaveUp()
		g.trace.added(len(haves), g.inVain)
		args, err := a.fetchArgs(u.r, req, append(g.common[:len(g.common):len(g.common)], haves...), done)
		if err != nil {
			return nil, err
		}
		body, err := a.command("fetch", args)
		if err != nil {
			return nil, err
		}
		if in, err = u.t.Request(body, false); err != nil {
			return nil, err
		}
		if done {
			break
		}
		if err := g.readV2Acks(in, a.format); err != nil {
			return nil, u.t.Explain(err)
		}
		if g.ready {
			break
		}
	}
	g.trace.end()
	p := &Pack{t: u.t}
	if err := p.readSections(in, a.format); err != nil {
		if err = u.t.Explain(err); errors.Is(err, errNoPack) {
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
	p.in = &stickyReader{r: demux(p.watch(in), &caps, req.Progress)}
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
		pkt, special, err := transport.ReadPacket(in, &buf)
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
			return fmt.Errorf("expected 'packfile', received '%s'", mask.Name(header))
		}
	}
}

// readShallowInfo reads the lines of a shallow-info section, up to the
// delim that ends it.
func (p *Pack) readShallowInfo(in *bufio.Reader, f object.Format, buf *[]byte) error {
	for {
		pkt, special, err := transport.ReadPacket(in, buf)
		switch {
		case err != nil:
			return err
		case special == transport.DelimPkt:
			return nil
		case special != 0:
			return fmt.Errorf("error processing shallow info: a %s packet", specialName(special))
		}
		if err := p.shallowLine(bytes.TrimSuffix(pkt, []byte("\n")), f); err != nil {
			return err
		}
	}
}

// specialName names a packet without a payload.
func specialName(special int) string {
	return [...]string{transport.FlushPkt: "flush", transport.DelimPkt: "delim", transport.EndPkt: "response-end"}[special]
}

// fetchArgs is the arguments of req's v2 fetch command with haves, and
// done where it ends the negotiation; r takes the
// warning for a filter the server cannot apply.
func (a *v2) fetchArgs(r *Remote, req *FetchRequest, haves []object.ID, done bool) (packp.CommandArgs, error) {
	args := &packp.FetchArgs{
		Wants: hashes(req.Wants, a.format), Haves: hashes(haves, a.format), Done: done,
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
		r.warn(filterIgnored)
	}
	if req.Only {
		return inOrder{args}, nil
	}
	return args, nil
}

// inOrder encodes a fetch's arguments with the wants in the order asked,
// where go-git sorts them: upload-pack walks them in that order, and its
// filter hides a wanted object behind a wanted tree that holds it when it
// walks the tree first (Refetch orders its wants against that). The wants
// after the first follow the other arguments, which v2 takes in any order.
type inOrder struct{ *packp.FetchArgs }

// Encode writes the arguments.
func (o inOrder) Encode(w io.Writer) error {
	if len(o.Wants) == 0 {
		return o.FetchArgs.Encode(w) // refused there
	}
	first := *o.FetchArgs
	first.Wants = o.Wants[:1]
	if err := first.Encode(w); err != nil {
		return err
	}
	for _, h := range o.Wants[1:] {
		if _, err := pktline.Writef(w, "want %s\n", h); err != nil {
			return err
		}
	}
	return nil
}
