package upstream

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// FetchRequest is what a fetch asks of upload-pack.
type FetchRequest struct {
	Wants []object.ID
	// Haves gives the haves, round by round; nil sends none.
	Haves Negotiator
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
		req.Capabilities.Set(capability.Agent, transport.Agent)
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
