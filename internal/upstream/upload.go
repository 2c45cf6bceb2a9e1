package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// Upload is an upload-pack session whose advertisement has been read: of
// protocol v2 (capabilities) or v0 (refs), whichever the server answered a
// request for protocol.version with. A v0 session serves one fetch; a v2
// session another once the answer to the last is drained (Pack.Drain).
type Upload struct {
	r   *Remote
	t   transport.Transport
	adv *advert // v0
	v2  *v2
}

// OpenUpload opens an upload-pack session and reads its advertisement;
// with a sink, each ref goes to it as it is read (over v2, the answer to
// ls-refs). An empty upstream gives no session (nil, nil).
func (r *Remote) OpenUpload(sink RefSink) (*Upload, error) {
	u := &Upload{r: r}
	t, err := r.session("git-upload-pack", func(in *bufio.Reader) (int, error) {
		if v2, err := isV2(in); err != nil {
			return 0, err
		} else if v2 {
			a, err := readV2(in)
			u.v2 = a
			return 2, err
		}
		a, err := readAdvertisement(in, sink)
		switch {
		case errors.Is(err, errEmptyAdvertisement), err == nil && a.empty():
			return 0, errEmptyRemote
		case err != nil:
			return 0, err
		}
		u.adv = a
		return 0, nil
	})
	if errors.Is(err, errEmptyRemote) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	u.t = t
	if u.v2 != nil && sink != nil {
		sink.Format(u.v2.format)
		if err := u.v2.lsRefs(t, sink); err != nil {
			err = t.Explain(err)
			t.Close()
			return nil, err
		}
	}
	return u, nil
}

// Close ends the session.
func (u *Upload) Close() error { return u.t.Close() }

// ByID reports whether the upstream serves any object it has by its id,
// not only what its refs point at: over protocol v2, whose upload-pack
// takes any want, and over v0 where it advertises
// allow-reachable-sha1-in-want (uploadpack.allowReachableSHA1InWant or
// allowAnySHA1InWant); v0's refuses any other id that is no tip ("not our
// ref"). A v0 session serves one request: ask for objects by id on a new
// one (Fresh).
func (u *Upload) ByID() bool {
	return u.v2 != nil || u.adv.caps.Supports(capability.AllowReachableSHA1InWant)
}

// Fresh returns a session on which to ask for objects by id once this
// one's answer is drained: the same over protocol v2, a new one over v0,
// whose sessions serve one request each.
func (u *Upload) Fresh() (*Upload, error) {
	if u.v2 != nil {
		return u, nil
	}
	up, err := u.r.OpenUpload(nil)
	if err == nil && up == nil {
		err = fmt.Errorf("'%s' is empty now", u.r.URL)
	}
	return up, err
}

// filterIgnored is git's warning for a filter the server cannot apply.
const filterIgnored = "filtering not recognized by server, ignoring"

// warn writes git's "warning: " line.
func (r *Remote) warn(msg string) {
	if r.o.Stderr != nil {
		fmt.Fprintf(r.o.Stderr, "warning: %s\n", msg)
	}
}

// errNoPack is an answer to a fetch that ends before it starts.
var errNoPack = errors.New("no pack")

// Fetch asks for the pack of req.Wants, all the haves and "done" in one
// request (the helper negotiates in a single round), and returns the
// answer once what comes before the pack is read: over v0, the shallow
// lines and acknowledgements.
func (u *Upload) Fetch(req *FetchRequest) (*Pack, error) {
	if u.v2 != nil {
		return u.fetchV2(req)
	}
	if req.Filter != "" && !u.adv.caps.Supports(capability.Filter) {
		// fetch-pack warns twice over v0: once for the capabilities, once
		// as it writes the request.
		u.r.warn(filterIgnored)
		u.r.warn(filterIgnored)
	}
	ureq, err := uploadRequest(&u.adv.caps, req)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := ureq.Encode(&b); err != nil {
		return nil, err
	}
	// The haves and "done", with no flush between them: a stateless
	// upload-pack (HTTP) answers a flush and ends the request there.
	haves := &packp.UploadHaves{Haves: hashes(req.Haves, u.adv.format), Done: true}
	if err := haves.Encode(&b); err != nil {
		return nil, err
	}
	in, err := u.t.Request(&b, false)
	if err != nil {
		return nil, err
	}
	p := &Pack{Deepened: req.deepen() || ureq.Depth.Deepen > 0, Theirs: u.adv.shallows, t: u.t}
	if err := p.readHead(in, u.adv.format); err != nil {
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
