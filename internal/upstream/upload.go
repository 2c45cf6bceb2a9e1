package upstream

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/git-durable/git-durable/object"
)

// Upload is an upload-pack session whose advertisement has been read; a
// protocol v0 session serves one fetch.
type Upload struct {
	r    *Remote
	sess transport.UploadPackSession
	refs *packp.AdvRefs // the capabilities and shallow lines (the refs too, unless streamed)
	// Listed tells that the refs went to the sink OpenUpload was given;
	// otherwise Advertisement holds them.
	Listed bool
}

// OpenUpload opens an upload-pack session and reads its advertisement,
// handing each ref to sink when there is one; an empty upstream gives no
// session (nil, nil). The refs of the project's own transports are
// streamed in the upstream's order; go-git's sessions, which keep them in
// maps, are given in Advertisement.
func (r *Remote) OpenUpload(sink RefSink) (*Upload, error) {
	var st *streamer
	if sink != nil {
		st = &streamer{sink: sink}
	}
	streamed := false
	if r.tap != nil {
		r.tap.used = false
		defer func() { r.tap.sink = nil }()
	}
	s, ar, err := r.advertise(func(tr transport.Transport) (transport.Session, error) {
		s, err := tr.NewUploadPackSession(r.ep, r.auth)
		if ss, ok := s.(interface{ setSink(refSink) }); ok && err == nil && st != nil {
			ss.setSink(st.ref)
			streamed = true
		} else if r.tap != nil && st != nil {
			r.tap.sink = st.ref // the HTTP session's GET of info/refs
		}
		return s, err
	})
	if r.tap != nil && r.tap.used {
		streamed = true
	}
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := checkFormat(ar, r.URL); err != nil {
		s.Close()
		return nil, err
	}
	return &Upload{r: r, sess: s.(transport.UploadPackSession), refs: ar, Listed: streamed}, nil
}

// Advertisement is what the upstream advertised, refs included when they
// were not streamed.
func (u *Upload) Advertisement() *Advertisement { return advertisementOf(u.refs) }

// Close ends the session.
func (u *Upload) Close() error { return u.sess.Close() }

// checkFormat refuses an upstream that names objects with SHA-256: go-git
// v5 reads and writes only SHA-1 on the wire.
func checkFormat(ar *packp.AdvRefs, url string) error {
	for _, f := range ar.Capabilities.Get(capability.ObjectFormat) {
		if f != "sha1" {
			return formatError(url, f)
		}
	}
	return nil
}

// streamer hands an advertisement's refs to a RefSink, HEAD's symbolic
// target of the capabilities first.
type streamer struct {
	sink    RefSink
	started bool
}

func (s *streamer) ref(ar *packp.AdvRefs, name []byte, id plumbing.Hash) error {
	if !s.started {
		s.started = true
		for _, v := range ar.Capabilities.Get(capability.SymRef) {
			if from, to, ok := strings.Cut(v, ":"); ok {
				s.sink.Symref(from, to)
			}
		}
	}
	return s.sink.Ref(name, idOf(id))
}

// FetchRequest is what a fetch asks of upload-pack.
type FetchRequest struct {
	Wants, Haves []object.ID
	// Shallows are the repository's shallow commits.
	Shallows []object.ID
	// Depth, when positive, deepens to that many commits (from the
	// shallow boundary with DeepenRelative); else DeepenSince, when set,
	// to the commits since then.
	Depth          int
	DeepenRelative bool
	DeepenSince    time.Time
	IncludeTag     bool
	NoProgress     bool
	// Progress takes the upstream's progress messages.
	Progress io.Writer
}

// deepen reports whether the request deepens the history.
func (f *FetchRequest) deepen() bool { return f.Depth > 0 || !f.DeepenSince.IsZero() }

// Pack is the answer to a fetch: the pack stream (side-band
// demultiplexed) and the shallow lines.
type Pack struct {
	// Shallow and Unshallow are the answer's lines about the shallow
	// boundary, when Deepened: the request deepened.
	Shallow, Unshallow []object.ID
	Deepened           bool
	// Theirs are the commits at which the upstream itself is shallow.
	Theirs []object.ID

	in   *stickyReader
	resp *packp.UploadPackResponse
}

// Read reads the pack. A reader ahead of the unpacker may meet a channel-3
// error after the pack's trailer and drop it; the pack keeps it for
// Finish, so the error fails the fetch at any point, as in git.
func (p *Pack) Read(b []byte) (int, error) { return p.in.Read(b) }

// Finish ends a fetch whose pack is in: what follows the pack (a flush in
// side-band mode) must end cleanly.
func (p *Pack) Finish() error {
	if _, err := io.Copy(io.Discard, io.LimitReader(p.in, 1<<20)); err != nil {
		return err
	}
	return p.resp.Close()
}

// Fetch asks for the pack of req.Wants and returns it.
func (u *Upload) Fetch(req *FetchRequest) (*Pack, error) {
	ureq, err := uploadRequest(u.refs.Capabilities, req, u.r.URL)
	if err != nil {
		return nil, err
	}
	resp, err := u.sess.UploadPack(u.r.ctx, ureq)
	if err != nil {
		if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
			return nil, fmt.Errorf("'%s' sent no pack", u.r.URL)
		}
		return nil, err
	}
	var in io.Reader = resp
	switch {
	case ureq.Capabilities.Supports(capability.Sideband64k):
		d := sideband.NewDemuxer(sideband.Sideband64k, resp)
		d.Progress = req.Progress
		in = d
	case ureq.Capabilities.Supports(capability.Sideband):
		d := sideband.NewDemuxer(sideband.Sideband, resp)
		d.Progress = req.Progress
		in = d
	}
	return &Pack{
		Shallow: ids(resp.Shallows), Unshallow: ids(resp.Unshallows), Deepened: req.deepen(),
		Theirs: ids(u.refs.Shallows), in: &stickyReader{r: in}, resp: resp,
	}, nil
}

// uploadRequest builds the want/have request from what the upstream
// advertised: side-band-64k, ofs-delta, thin-pack, multi_ack_detailed when
// offered, include-tag when git follows tags, no-progress when git does not
// show progress, and the shallow lines and deepening git asked for.
func uploadRequest(adv *capability.List, f *FetchRequest, url string) (*packp.UploadPackRequest, error) {
	req := packp.NewUploadPackRequestFromCapabilities(adv)
	req.Wants, req.Haves = hashes(f.Wants), hashes(f.Haves)
	set := func(c capability.Capability) {
		if adv.Supports(c) && !req.Capabilities.Supports(c) {
			req.Capabilities.Set(c)
		}
	}
	set(capability.OFSDelta)
	set(capability.ThinPack)
	if f.IncludeTag {
		set(capability.IncludeTag)
	}
	if f.NoProgress {
		set(capability.NoProgress)
	}
	if len(f.Shallows) > 0 || f.deepen() {
		if !adv.Supports(capability.Shallow) {
			return nil, fmt.Errorf("'%s' does not support shallow fetches", url)
		}
		set(capability.Shallow)
		req.Shallows = hashes(f.Shallows)
	}
	switch {
	case f.Depth > 0:
		req.Depth = packp.DepthCommits(f.Depth)
		if f.DeepenRelative {
			if !adv.Supports(capability.DeepenRelative) {
				return nil, fmt.Errorf("'%s' does not support --deepen", url)
			}
			set(capability.DeepenRelative)
		}
	case !f.DeepenSince.IsZero():
		if !adv.Supports(capability.DeepenSince) {
			return nil, fmt.Errorf("'%s' does not support --shallow-since", url)
		}
		set(capability.DeepenSince)
		req.Depth = packp.DepthSince(f.DeepenSince)
	}
	return req, req.Validate()
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

// idOf is a go-git hash as an object id.
func idOf(h plumbing.Hash) object.ID {
	id, _ := object.IDFromBytes(h[:])
	return id
}

func ids(hs []plumbing.Hash) []object.ID {
	var out []object.ID
	for _, h := range hs {
		out = append(out, idOf(h))
	}
	return out
}

// hashOf is an object id as a go-git hash.
func hashOf(id object.ID) plumbing.Hash {
	var h plumbing.Hash
	copy(h[:], id.Bytes())
	return h
}

func hashes(list []object.ID) []plumbing.Hash {
	var out []plumbing.Hash
	for _, id := range list {
		out = append(out, hashOf(id))
	}
	return out
}

// sortedNames returns the keys of m, sorted.
func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
