package remote

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// fetch answers a batch of "fetch <oid> <ref>" lines: it negotiates with the
// upstream, receives the pack into the repository through the durable
// unpacker, records the shallow boundary, and only then answers git.
func (h *helper) fetch(cmds []string) error {
	var wants []plumbing.Hash
	seen := map[plumbing.Hash]bool{}
	for _, c := range cmds {
		f := strings.Fields(c)
		if len(f) < 2 || !plumbing.IsHash(f[1]) {
			return fmt.Errorf("bad fetch command from git: '%s'", c)
		}
		id := plumbing.NewHash(f[1])
		if !seen[id] {
			seen[id] = true
			wants = append(wants, id)
		}
	}
	h.batchN++
	tips := wants // what the refs git asked for point at
	r, err := h.repository()
	if err != nil {
		return err
	}
	var haves []plumbing.Hash
	if !h.set.refetch {
		haves = h.localHaves()
	}
	if h.set.refetch || h.set.depth > 0 || !h.set.deepenSince.IsZero() {
		// Refetching and deepening ask again for tips the repository has.
		haves = without(haves, wants)
	} else {
		wants = without(wants, haves)
	}
	reply := ""
	if len(wants) > 0 {
		rcv, err := h.fetchPack(r.GitDir, wants, haves, tips)
		if err != nil {
			return err
		}
		if rcv.lock != "" {
			reply += "lock " + rcv.lock + "\n"
		}
		if rcv.connected && h.set.checkConn {
			reply += "connectivity-ok\n"
		}
	}
	return h.write(reply + "\n")
}

// fetchPack asks the upstream for wants and receives the pack; tips are
// what every ref git asked for points at.
func (h *helper) fetchPack(gitDir string, wants, haves, tips []plumbing.Hash) (received, error) {
	up := h.up
	h.up = nil // a v0 session serves one request
	if up == nil {
		var err error
		if up, err = h.openUpload(nil); err != nil {
			return received{}, err
		}
		if up == nil {
			return received{}, fmt.Errorf("'%s' is empty now; nothing to fetch", h.url)
		}
	}
	defer up.sess.Close()
	shallow, err := readShallow(gitDir)
	if err != nil {
		return received{}, err
	}
	req, err := h.uploadRequest(up.refs.Capabilities, wants, haves, shallow)
	if err != nil {
		return received{}, err
	}
	resp, err := up.sess.UploadPack(h.ctx, req)
	if err != nil {
		if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
			return received{}, fmt.Errorf("'%s' sent no pack", h.url)
		}
		return received{}, err
	}
	defer resp.Close()
	if err := checkUnshallow(shallow, resp); err != nil {
		return received{}, err
	}
	var in io.Reader = resp
	rl := h.relay()
	defer rl.flush()
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		d := sideband.NewDemuxer(sideband.Sideband64k, resp)
		d.Progress = rl
		in = d
	case req.Capabilities.Supports(capability.Sideband):
		d := sideband.NewDemuxer(sideband.Sideband, resp)
		d.Progress = rl
		in = d
	}
	// A reader ahead of the unpacker may meet a channel-3 error after the
	// pack's trailer and drop it; the sticky reader keeps it for the check
	// below, so the error fails the fetch at any point, as in git.
	sr := &stickyReader{r: in}
	rcv, err := h.unpack(sr, wants)
	if err != nil {
		return received{}, err
	}
	if err := h.afterPack(sr, resp, gitDir, shallow, up.refs, tips); err != nil {
		// git is not told of the .keep: remove it, as git fetch does
		// when it fails, so that the pack is not pinned for ever.
		if rcv.lock != "" {
			os.Remove(rcv.lock)
		}
		return received{}, err
	}
	return rcv, nil
}

// afterPack finishes a fetch whose pack is in: what follows the pack (a
// flush in side-band mode) must end cleanly, and the shallow boundary is
// recorded.
func (h *helper) afterPack(rest io.Reader, resp *packp.UploadPackResponse, gitDir string, shallow []plumbing.Hash, ar *packp.AdvRefs, tips []plumbing.Hash) error {
	if _, err := io.Copy(io.Discard, io.LimitReader(rest, 1<<20)); err != nil {
		return err
	}
	if err := resp.Close(); err != nil {
		return err
	}
	return h.updateShallow(gitDir, shallow, resp, ar, tips)
}

// uploadRequest builds the want/have request from what the upstream
// advertised: side-band-64k, ofs-delta, thin-pack, multi_ack_detailed when
// offered, include-tag when git follows tags, no-progress when git does not
// show progress, and the shallow lines and deepening git asked for.
func (h *helper) uploadRequest(adv *capability.List, wants, haves, shallow []plumbing.Hash) (*packp.UploadPackRequest, error) {
	req := packp.NewUploadPackRequestFromCapabilities(adv)
	req.Wants, req.Haves = wants, haves
	set := func(c capability.Capability) {
		if adv.Supports(c) && !req.Capabilities.Supports(c) {
			req.Capabilities.Set(c)
		}
	}
	set(capability.OFSDelta)
	set(capability.ThinPack)
	if h.set.followTags {
		set(capability.IncludeTag)
	}
	if !h.set.progress || h.set.verbosity == 0 {
		set(capability.NoProgress)
	}
	deepen := h.set.depth > 0 || !h.set.deepenSince.IsZero()
	if len(shallow) > 0 || deepen {
		if !adv.Supports(capability.Shallow) {
			return nil, fmt.Errorf("'%s' does not support shallow fetches", h.url)
		}
		set(capability.Shallow)
		req.Shallows = shallow
	}
	switch {
	case h.set.depth > 0:
		req.Depth = packp.DepthCommits(h.set.depth)
		if h.set.deepenRel {
			if !adv.Supports(capability.DeepenRelative) {
				return nil, fmt.Errorf("'%s' does not support --deepen", h.url)
			}
			set(capability.DeepenRelative)
		}
	case !h.set.deepenSince.IsZero():
		if !adv.Supports(capability.DeepenSince) {
			return nil, fmt.Errorf("'%s' does not support --shallow-since", h.url)
		}
		set(capability.DeepenSince)
		req.Depth = packp.DepthSince(h.set.deepenSince)
	}
	return req, req.Validate()
}

// without returns ids minus those in drop. git asks only for refs it does
// not have, but a ref may point at a tip another local ref has.
func without(ids, drop []plumbing.Hash) []plumbing.Hash {
	skip := make(map[plumbing.Hash]bool, len(drop))
	for _, h := range drop {
		skip[h] = true
	}
	var out []plumbing.Hash
	for _, id := range ids {
		if !skip[id] {
			out = append(out, id)
		}
	}
	return out
}

// maxRecent bounds the ancestors of the ref tips sent as haves.
const maxRecent = 256

// localHaves returns what a fetch tells the upstream the repository has:
// the commits at the tips of its refs and the most recent commits reachable
// from them. go-git negotiates in a single round, so they are all sent at
// once. Only what refs reach is trusted: objects a killed fetch left behind
// are never advertised, because their closure is not known to be complete.
// When git cannot walk the refs (a broken object after a crash), nothing is
// claimed: the upstream sends everything, and the unpacker repairs what is
// broken.
func (h *helper) localHaves() []plumbing.Hash {
	tips, err := runGit(h.ctx, nil, "rev-list", "--no-walk", "--all")
	if err != nil {
		fmt.Fprintf(h.errw, "warning: cannot walk the local refs (%s); fetching everything\n", describe(err, h.url))
		return nil
	}
	haves := hashes(tips)
	if len(haves) == 0 {
		return nil
	}
	// rev-list's own order (newest commit date first) stops after
	// maxRecent commits; --date-order would walk the whole history first.
	recent, err := runGit(h.ctx, nil, "rev-list", "--max-count="+strconv.Itoa(maxRecent), "--all")
	if err != nil {
		return haves // the tips are sound
	}
	seen := make(map[plumbing.Hash]bool, len(haves))
	for _, id := range haves {
		seen[id] = true
	}
	for _, id := range hashes(recent) {
		if !seen[id] {
			seen[id] = true
			haves = append(haves, id)
		}
	}
	return haves
}

// stickyReader returns the first error other than io.EOF its reader gave
// on every later read.
type stickyReader struct {
	r   io.Reader
	err error
}

func (s *stickyReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}
