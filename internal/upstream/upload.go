package upstream

import (
	"bufio"
	"errors"
	"fmt"

	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// Upload is an upload-pack session whose advertisement has been read: of
// protocol v2 (capabilities) or v0 (refs), whichever the server answered a
// request for protocol.version with. A v0 session serves one fetch; a v2
// session another once the answer to the last is drained (Pack.Drain).
type Upload struct {
	r *Remote
	t transport.Transport
	d dialect // what the advertisement said, v0's or v2's
}

// dialect is what a session of upload-pack speaks, by its advertisement:
// protocol v0's refs (advert) or v2's capabilities (v2).
type dialect interface {
	// idFormat is the object format of the upstream's ids.
	idFormat() object.Format
	// checkFormat refuses a fetch into a repository of format local, in
	// git's words for the version.
	checkFormat(local object.Format) error
	// byID reports whether the upstream serves any object it has by id.
	byID() bool
	// single reports whether a session serves one fetch only (v0).
	single() bool
	// listRefs gives the refs to sink where the advertisement did not
	// (v2: ls-refs).
	listRefs(t transport.Transport, sink RefSink) error
	// fetch sends req and reads the answer up to the pack.
	fetch(u *Upload, req *FetchRequest) (*Pack, error)
}

// OpenUpload opens an upload-pack session and reads its advertisement;
// with a sink, each ref goes to it as it is read (over v2, the answer to
// ls-refs). An empty upstream gives no session (nil, nil).
func (r *Remote) OpenUpload(sink RefSink) (*Upload, error) {
	u := &Upload{r: r}
	t, err := r.session("git-upload-pack", func(in *bufio.Reader) (int, error) {
		if v2, err := transport.IsV2(in); err != nil {
			return 0, err
		} else if v2 {
			a, err := readV2(in)
			if err == nil {
				u.d = a
			}
			return 2, err
		}
		a, err := readAdvertisement(in, sink)
		switch {
		case errors.Is(err, errEmptyAdvertisement), err == nil && a.empty():
			return 0, errEmptyRemote
		case err != nil:
			return 0, err
		}
		u.d = a
		return 0, nil
	})
	if errors.Is(err, errEmptyRemote) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	u.t = t
	if sink != nil {
		if err := u.d.listRefs(t, sink); err != nil {
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
	return u.d.byID()
}

// Fresh returns a session on which to ask for objects by id once this
// one's answer is drained: the same over protocol v2, a new one over v0,
// whose sessions serve one request each.
func (u *Upload) Fresh() (*Upload, error) {
	if !u.d.single() {
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

// Fetch asks for the pack of req.Wants, negotiating in rounds of the haves
// req.Haves gives (see negotiation), and returns the answer once what
// comes before the pack is read: over v0, the shallow lines and
// acknowledgements; over v2, the sections before the pack.
func (u *Upload) Fetch(req *FetchRequest) (*Pack, error) { return u.d.fetch(u, req) }
