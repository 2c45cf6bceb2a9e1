package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"
	"github.com/go-git/go-git/v6/plumbing/protocol/capability"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// A v0 advertisement is a dialect: the refs came with it, and a session
// serves one fetch.

func (a *advert) idFormat() object.Format { return a.format }

func (a *advert) checkFormat(local object.Format) error {
	if !supportsFormat(&a.caps, local) {
		return fmt.Errorf("Server does not support this repository's object format")
	}
	return nil
}

// byID: v0's upload-pack takes an id that is no tip where it advertises
// allow-reachable-sha1-in-want (uploadpack.allowReachableSHA1InWant or
// allowAnySHA1InWant), and refuses it otherwise ("not our ref").
func (a *advert) byID() bool { return a.caps.Supports(capability.AllowReachableSHA1InWant) }

func (a *advert) single() bool { return true }

func (a *advert) listRefs(transport.Transport, RefSink) error { return nil }

// fetch negotiates as git's fetch-pack does over v0: the wants, then the
// haves in rounds, each ended by a flush and answered with
// acknowledgements up to a NAK, until the upstream is ready, the haves
// run out or too many go unacknowledged; then "done", and the shallow
// lines and acknowledgements before the pack are read. Over a stateless
// connection (HTTP) every request carries the wants and the haves already
// acknowledged again. An upstream without multi_ack takes every have in
// one request.
func (a *advert) fetch(u *Upload, req *FetchRequest) (*Pack, error) {
	if req.Filter != "" && !a.caps.Supports(capability.Filter) {
		// fetch-pack warns twice over v0: once for the capabilities, once
		// as it writes the request.
		u.r.warn(filterIgnored)
		u.r.warn(filterIgnored)
	}
	ureq, err := uploadRequest(&a.caps, req)
	if err != nil {
		return nil, err
	}
	g := newNegotiation(req.Haves, !u.t.Persistent())
	g.trace = roundTrace{t: u.r.o.Trace2, category: "negotiation_v0_v1"}
	defer g.trace.end()
	g.trace.begin()
	// no-done, as fetch-pack asks it over a stateless connection: the
	// pack follows the round the upstream is ready in, with no request
	// that says "done".
	noDone := g.stateless && a.caps.Supports(capability.NoDone) && ureq.Capabilities.Supports(capability.MultiACKDetailed)
	if noDone {
		ureq.Capabilities.Set(capability.NoDone)
	}
	var want bytes.Buffer
	if err := ureq.Encode(&want); err != nil {
		return nil, err
	}
	p := &Pack{Deepened: req.deepen() || ureq.Depth.Deepen > 0, Theirs: a.shallows, t: u.t}
	var b bytes.Buffer
	b.Write(want.Bytes())
	shallowRead := false
	if a.caps.Supports(capability.MultiACKDetailed) || a.caps.Supports(capability.MultiACK) {
		in, read, err := a.rounds(u, g, want.Bytes(), &b, p, noDone)
		switch {
		case err != nil:
			return nil, err
		case in != nil:
			return a.received(u, req, ureq, p, in, false)
		}
		shallowRead = read
	} else if req.Haves != nil {
		writeHaves(&b, req.Haves.Next(oneShot))
	}
	g.trace.end()
	if g.stateless {
		writeHaves(&b, g.common)
	}
	// "done", with no flush before it: a stateless upload-pack (HTTP)
	// answers a flush and ends the request there.
	pktline.Writeln(&b, "done")
	in, err := u.t.Request(&b, false)
	if err != nil {
		return nil, err
	}
	return a.received(u, req, ureq, p, in, p.Deepened && (!shallowRead || g.stateless))
}

// received reads the acknowledgements before the pack (the shallow lines
// first where withShallow), and returns the pack.
func (a *advert) received(u *Upload, req *FetchRequest, ureq *packp.UploadRequest, p *Pack, in *bufio.Reader, withShallow bool) (*Pack, error) {
	if err := p.readHead(in, a.format, withShallow); err != nil {
		if err = u.t.Explain(err); errors.Is(err, errNoPack) {
			return nil, fmt.Errorf("'%s' sent no pack", u.r.URL)
		}
		return nil, err
	}
	if req.Only {
		// The cut of "deepen 1", no boundary of the repository's.
		p.Deepened, p.Shallow, p.Unshallow, p.Theirs = false, nil, nil, nil
	}
	p.in = &stickyReader{r: demux(p.watch(in), &ureq.Capabilities, req.Progress)}
	return p, nil
}

// rounds sends the rounds of haves, the first after what b holds (the
// wants), each answered before the next; it returns the answer where the
// pack follows the round the upstream is ready in (noDone), and whether
// the shallow lines of a deepening were read; b is left with what goes
// before the request that says "done".
func (a *advert) rounds(u *Upload, g *negotiation, want []byte, b *bytes.Buffer, p *Pack, noDone bool) (*bufio.Reader, bool, error) {
	shallowRead := false
	for haves, probe := g.next(); len(haves) > 0 || probe; haves, probe = g.next() {
		g.trace.round()
		if probe {
			g.trace.added(0, g.inVain)
		} else {
			g.trace.added(len(haves), g.inVain)
		}
		if g.stateless {
			writeHaves(b, g.common)
		}
		writeHaves(b, haves)
		pktline.WriteFlush(b)
		in, err := u.t.Request(b, false)
		if err != nil {
			return nil, false, err
		}
		if err := a.readRound(in, p, g, !shallowRead || g.stateless); err != nil {
			return nil, false, u.t.Explain(err)
		}
		g.trace.endRound()
		if noDone && g.ready {
			return in, shallowRead, nil
		}
		shallowRead = p.Deepened
		b.Reset()
		if g.stateless {
			b.Write(want)
		}
	}
	return nil, shallowRead, nil
}

// oneShot is how many haves go to an upstream that cannot negotiate in
// rounds (no multi_ack), all in the request that says "done".
const oneShot = 1024

// readRound reads the answer to one round of haves: the shallow lines
// first where the request deepened and withShallow (a stateful session
// sends them once, after the wants; a stateless one in every answer),
// then the acknowledgements up to the NAK.
func (a *advert) readRound(in *bufio.Reader, p *Pack, g *negotiation, withShallow bool) error {
	if p.Deepened && withShallow {
		if err := p.readShallowLines(in, a.format); err != nil {
			return err
		}
	}
	return g.readAcks(in, a.format)
}
