package upstream

import (
	"bufio"
	"bytes"
	"io"

	"github.com/go-git/go-git/v6/plumbing"
	"github.com/go-git/go-git/v6/plumbing/protocol/capability"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// Receive is a receive-pack session whose advertisement has been read.
type Receive struct {
	r   *Remote
	t   transport.Transport
	adv *advert
}

// OpenReceive opens a receive-pack session and reads its advertisement,
// which it keeps whole: the push needs the refs' values.
func (r *Remote) OpenReceive() (*Receive, error) {
	var adv *advert
	t, err := r.session("git-receive-pack", func(in *bufio.Reader) (int, error) {
		a, err := readAdvertisement(in, nil)
		if err != nil && err != errEmptyAdvertisement {
			return 0, err
		}
		adv = a // an empty repository's: no ref, no capability
		return 0, nil
	})
	if err != nil {
		return nil, err
	}
	return &Receive{r: r, t: t, adv: adv}, nil
}

// Advertisement is the refs receive-pack advertised.
func (p *Receive) Advertisement() *Advertisement { return p.adv.kept }

// Supports reports whether receive-pack advertised the capability.
func (p *Receive) Supports(name string) bool { return p.adv.caps.Supports(name) }

// Close ends the session.
func (p *Receive) Close() error { return p.t.Close() }

// Command is one ref update of a push; a zero Old creates the ref, a zero
// New deletes it.
type Command struct {
	Name     string
	Old, New object.ID
}

// PushRequest is what a push sends to receive-pack.
type PushRequest struct {
	Commands []Command
	// Pack is the pack of what the upstream lacks; nil when the push
	// only deletes.
	Pack io.Reader
	// Quiet asks for no progress; Atomic for all the updates or none.
	Quiet, Atomic bool
	// Progress takes the upstream's progress messages.
	Progress io.Writer
}

// Push sends the commands and the pack through receive-pack and reads its
// report as git's send-pack reads it (with side-band-64k when offered).
// A report that is not Read was not asked for: receive-pack offered no
// report-status.
func (p *Receive) Push(req *PushRequest) (*Report, error) {
	caps := &p.adv.caps
	ureq := &packp.UpdateRequests{}
	set := func(c capability.Capability) {
		if caps.Supports(c) && !ureq.Capabilities.Supports(c) {
			ureq.Capabilities.Set(c)
		}
	}
	set(capability.ReportStatus)
	set(capability.Sideband64k)
	if req.Quiet {
		set(capability.Quiet)
	}
	if req.Atomic {
		set(capability.Atomic)
	}
	if caps.Supports(capability.Agent) {
		ureq.Capabilities.Set(capability.Agent, transport.Agent)
	}
	if caps.Supports(capability.ObjectFormat) {
		// send-pack names the format whenever receive-pack named one:
		// receive-pack takes a request without it for SHA-1.
		ureq.Capabilities.Set(capability.ObjectFormat, p.adv.format.String())
	}
	names := make([]string, 0, len(req.Commands))
	for _, c := range req.Commands {
		ureq.Commands = append(ureq.Commands, &packp.Command{
			Name: plumbing.ReferenceName(c.Name), Old: hashOf(c.Old, p.adv.format), New: hashOf(c.New, p.adv.format),
		})
		names = append(names, c.Name)
	}
	var b bytes.Buffer
	if err := ureq.Encode(&b); err != nil {
		return nil, err
	}
	body := io.Reader(&b)
	if req.Pack != nil {
		body = io.MultiReader(&b, req.Pack)
	}
	rep := newReport(names, func(name string) bool {
		_, ok := p.adv.kept.Refs[name]
		return ok
	}, p.r.o.Stderr)
	in, err := p.t.Request(body, true)
	if err != nil {
		return rep, err
	}
	if !caps.Supports(capability.ReportStatus) {
		return rep, p.t.Close()
	}
	if err := rep.decode(demux(in, &ureq.Capabilities, req.Progress)); err != nil {
		p.t.Close()
		return rep, err
	}
	return rep, p.t.Close()
}
