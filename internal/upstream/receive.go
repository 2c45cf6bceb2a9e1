package upstream

import (
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/git-durable/git-durable/object"
)

// Receive is a receive-pack session whose advertisement has been read.
type Receive struct {
	r    *Remote
	sess transport.ReceivePackSession
	caps *capability.List
	adv  *Advertisement
}

// OpenReceive opens a receive-pack session and reads its advertisement.
func (r *Remote) OpenReceive() (*Receive, error) {
	s, ar, err := r.advertise(func(tr transport.Transport) (transport.Session, error) {
		return tr.NewReceivePackSession(r.ep, r.auth)
	})
	if err != nil {
		return nil, err
	}
	if err := checkFormat(ar, r.URL); err != nil {
		s.Close()
		return nil, err
	}
	return &Receive{r: r, sess: s.(transport.ReceivePackSession), caps: ar.Capabilities, adv: advertisementOf(ar)}, nil
}

// Advertisement is the refs receive-pack advertised.
func (p *Receive) Advertisement() *Advertisement { return p.adv }

// Supports reports whether receive-pack advertised the capability.
func (p *Receive) Supports(name string) bool { return p.caps.Supports(capability.Capability(name)) }

// Close ends the session.
func (p *Receive) Close() error { return p.sess.Close() }

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
	Pack io.ReadCloser
	// Quiet asks for no progress; Atomic for all the updates or none.
	Quiet, Atomic bool
	// Progress takes the upstream's progress messages.
	Progress io.Writer
}

// Push sends the commands and the pack through receive-pack and returns
// its report, read as git's send-pack reads it: with side-band-64k when
// offered. A report that is not Read was not sent.
func (p *Receive) Push(req *PushRequest) (*Report, error) {
	ureq := packp.NewReferenceUpdateRequestFromCapabilities(p.caps)
	set := func(c capability.Capability) {
		if p.caps.Supports(c) && !ureq.Capabilities.Supports(c) {
			ureq.Capabilities.Set(c)
		}
	}
	set(capability.Sideband64k)
	if req.Quiet {
		set(capability.Quiet)
	}
	if req.Atomic {
		set(capability.Atomic)
	}
	ureq.Progress = req.Progress
	names := make([]string, 0, len(req.Commands))
	for _, c := range req.Commands {
		ureq.Commands = append(ureq.Commands, &packp.Command{Name: plumbing.ReferenceName(c.Name), Old: hashOf(c.Old), New: hashOf(c.New)})
		names = append(names, c.Name)
	}
	if req.Pack != nil {
		ureq.Packfile = req.Pack
	}
	rep := newReport(names, func(name string) bool {
		_, ok := p.adv.Refs[name]
		return ok
	}, p.r.o.Stderr)
	if s, ok := p.sess.(interface{ setReport(func(io.Reader) error) }); ok {
		s.setReport(rep.decode)
	} else if tap := p.r.tap; tap != nil {
		// The HTTP session's POST to git-receive-pack: the body as sent.
		tap.report = func(body io.Reader) error { return rep.decode(demux(body, ureq)) }
		defer func() { tap.report = nil }()
	}
	gogit, err := p.sess.ReceivePack(p.r.ctx, ureq)
	if !rep.Read && gogit != nil {
		rep.adopt(gogit)
	}
	return rep, err
}

// demux takes the report out of the side-band of a receive-pack's answer
// to req, when req asked for one (Push asks for side-band-64k only); the
// progress goes to req.Progress.
func demux(r io.Reader, req *packp.ReferenceUpdateRequest) io.Reader {
	if !req.Capabilities.Supports(capability.Sideband64k) {
		return r
	}
	d := sideband.NewDemuxer(sideband.Sideband64k, r)
	d.Progress = req.Progress
	return d
}
