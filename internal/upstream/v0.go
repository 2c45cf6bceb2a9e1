package upstream

import (
	"bytes"
	"errors"
	"fmt"

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

// fetch sends the wants, all the haves and "done" in one request, and
// reads the shallow lines and acknowledgements before the pack.
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
	var b bytes.Buffer
	if err := ureq.Encode(&b); err != nil {
		return nil, err
	}
	// The haves and "done", with no flush between them: a stateless
	// upload-pack (HTTP) answers a flush and ends the request there.
	haves := &packp.UploadHaves{Haves: hashes(req.Haves, a.format), Done: true}
	if err := haves.Encode(&b); err != nil {
		return nil, err
	}
	in, err := u.t.Request(&b, false)
	if err != nil {
		return nil, err
	}
	p := &Pack{Deepened: req.deepen() || ureq.Depth.Deepen > 0, Theirs: a.shallows, t: u.t}
	if err := p.readHead(in, a.format); err != nil {
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
