package upstream

import (
	"fmt"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/object"
)

// The object format of a session is the one its server names in its
// capabilities (v0: on the advertisement's first line; v2: a capability
// line), SHA-1 when it names none, as connect.c reads it. Every id the
// session reads afterwards — refs, peeled tags, shallow lines — must be of
// that format's length; a fetch or push between repositories of different
// formats is refused before anything is sent, in git's words.

// unknownFormat is a server's object-format capability naming a format
// git does not know.
type unknownFormat struct{ format string }

func (e *unknownFormat) Error() string {
	return fmt.Sprintf("unknown object format '%s' specified by server", mask.Name(e.format))
}

// Describe is the error itself: it is git's line, and explains a session
// that broke on it (transport.Transport's Explain keeps it).
func (e *unknownFormat) Describe(string) string { return e.Error() }

// serverFormat reads the object-format capability of caps: its first
// value, as git reads it, and SHA-1 when the capability is absent.
func serverFormat(caps *capability.List) (object.Format, error) {
	if !caps.Supports(capability.ObjectFormat) {
		return object.SHA1, nil
	}
	names := caps.Get(capability.ObjectFormat)
	name := ""
	if len(names) > 0 {
		name = names[0]
	}
	f, err := object.ParseFormat(name)
	if err != nil || name == "" {
		return 0, &unknownFormat{name}
	}
	return f, nil
}

// supportsFormat reports whether the server of a v0 session offers f, as
// git's server_supports_hash decides: any of its object-format values, or
// SHA-1 when it names none.
func supportsFormat(caps *capability.List, f object.Format) bool {
	names := caps.Get(capability.ObjectFormat)
	if !caps.Supports(capability.ObjectFormat) {
		names = []string{"sha1"}
	}
	for _, n := range names {
		if n == f.String() {
			return true
		}
	}
	return false
}

// Format returns the object format of the upstream's ids.
func (u *Upload) Format() object.Format { return u.d.idFormat() }

// CheckFormat refuses a fetch into a repository of format local from an
// upstream of another, with git's fatal line: fetch-pack.c's for protocol
// v2 (send_fetch_request's "mismatched algorithms", or "the server does
// not support algorithm" when it names none and the repository is not
// SHA-1), do_fetch_pack's for v0.
func (u *Upload) CheckFormat(local object.Format) error { return u.d.checkFormat(local) }

// Format returns the object format of the receive-pack's ids.
func (p *Receive) Format() object.Format { return p.adv.format }

// CheckFormat refuses a push from a repository of format local to a
// receive-pack of another, with send-pack.c's fatal line.
func (p *Receive) CheckFormat(local object.Format) error {
	if !supportsFormat(&p.adv.caps, local) {
		return fmt.Errorf("the receiving end does not support this repository's hash algorithm")
	}
	return nil
}
