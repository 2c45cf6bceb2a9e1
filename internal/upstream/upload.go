package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/object"

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

// FetchRequest is what a fetch asks of upload-pack.
type FetchRequest struct {
	Wants, Haves []object.ID
	// Shallows are the repository's shallow commits.
	Shallows []object.ID
	// Depth, when positive, deepens to that many commits (from the
	// shallow boundary with DeepenRelative); DeepenSince, when set, to
	// the commits since then; DeepenNot to the commits these refs (as the
	// upstream names them) do not reach. Each is sent as git sends it, the
	// upstream judging what goes together (upload-pack refuses Depth with
	// either of the others; over v0, go-git's encoder refuses it first).
	Depth          int
	DeepenRelative bool
	DeepenSince    time.Time
	DeepenNot      []string
	IncludeTag     bool
	NoProgress     bool
	// Filter is a partial clone's filter spec, as git expanded it
	// ("blob:none", "combine:…"): sent when the server offers filtering;
	// else, as in git, a warning, and everything is fetched.
	Filter string
	// Progress takes the upstream's progress messages.
	Progress io.Writer
	// Only asks for the wanted objects themselves, not what they reach
	// (heal by id, see ByID): a commit's history is cut by "deepen 1"
	// where the server offers shallow fetches, and where it offers
	// filtering, "filter tree:0"
	// leaves out the trees and blobs below the wants (upload-pack sends
	// a wanted tree or blob all the same). Without filtering, a commit
	// comes with its tree and a tree with what it holds: one snapshot,
	// never the history. No shallow line is sent, and the answer's are
	// not the repository's.
	Only bool
}

// deepen reports whether the request deepens the history.
func (f *FetchRequest) deepen() bool {
	return f.Depth > 0 || !f.DeepenSince.IsZero() || len(f.DeepenNot) > 0
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

// uploadRequest builds the want request, ids of the advertised object
// format, from what the upstream advertised: side-band-64k, ofs-delta,
// thin-pack, multi_ack_detailed when offered, include-tag when git follows tags, no-progress when git does not
// show progress, the shallow lines and deepening git asked for, and the
// filter (with its capability) when the upstream offers filtering.
func uploadRequest(adv *capability.List, f *FetchRequest) (*packp.UploadRequest, error) {
	format, err := serverFormat(adv)
	if err != nil {
		return nil, err
	}
	req := &packp.UploadRequest{Wants: hashes(f.Wants, format)}
	set := func(c capability.Capability) {
		if adv.Supports(c) && !req.Capabilities.Supports(c) {
			req.Capabilities.Set(c)
		}
	}
	askCapabilities(adv, f, req, set)
	if err := askDeepen(adv, f, req, set, format); err != nil {
		return nil, err
	}
	if f.Only {
		if adv.Supports(capability.Shallow) {
			set(capability.Shallow)
			req.Depth.Deepen = 1
		}
		if adv.Supports(capability.Filter) {
			set(capability.Filter)
			req.Filter = packp.Filter("tree:0")
		}
	}
	return req, nil
}

// askCapabilities asks for the capabilities of a fetch, in fetch-pack's
// order: set takes one where the upstream offers it.
func askCapabilities(adv *capability.List, f *FetchRequest, req *packp.UploadRequest, set func(capability.Capability)) {
	if adv.Supports(capability.MultiACKDetailed) {
		set(capability.MultiACKDetailed)
	} else {
		set(capability.MultiACK)
	}
	if adv.Supports(capability.Sideband64k) {
		set(capability.Sideband64k)
	} else {
		set(capability.Sideband)
	}
	set(capability.ThinPack)
	set(capability.OFSDelta)
	if adv.Supports(capability.Agent) {
		req.Capabilities.Set(capability.Agent, agent)
	}
	if f.IncludeTag {
		set(capability.IncludeTag)
	}
	if f.NoProgress {
		set(capability.NoProgress)
	}
	if f.Filter != "" && adv.Supports(capability.Filter) {
		set(capability.Filter)
		req.Filter = packp.Filter(f.Filter)
	}
}

// askDeepen adds the shallow lines and the deepening git asked for, after
// fetch-pack's checks, in its order and words (do_fetch_pack).
func askDeepen(adv *capability.List, f *FetchRequest, req *packp.UploadRequest, set func(capability.Capability), format object.Format) error {
	if !adv.Supports(capability.Shallow) && (f.Depth > 0 || len(f.Shallows) > 0) {
		return errors.New("Server does not support shallow clients")
	}
	for _, c := range []struct {
		used   bool
		cap    capability.Capability
		option string
	}{
		{!f.DeepenSince.IsZero(), capability.DeepenSince, "--shallow-since"},
		{len(f.DeepenNot) > 0, capability.DeepenNot, "--shallow-exclude"},
		{f.DeepenRelative, capability.DeepenRelative, "--deepen"},
	} {
		if c.used && !adv.Supports(c.cap) {
			return fmt.Errorf("Server does not support %s", c.option)
		}
		if c.used {
			set(c.cap)
		}
	}
	if len(f.Shallows) > 0 || f.deepen() {
		set(capability.Shallow)
		req.Shallows = hashes(f.Shallows, format)
	}
	req.Depth = packp.DepthRequest{Deepen: f.Depth, DeepenSince: f.DeepenSince, DeepenNot: f.DeepenNot}
	return nil
}
