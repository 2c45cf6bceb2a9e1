package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/report"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/internal/upstream/transport/http"
)

// Remote is the upstream of one session of the helper: where it is, and
// the transport its scheme names (a command's or a socket's stream, or
// smart HTTP with the credentials that reach it). It lives as long as the
// context Open was given; the end of that context stops every command and
// connection of its sessions. Nothing of it changes once it is open.
type Remote struct {
	// URL is the address without credentials, as messages name it.
	URL string

	ctx    context.Context
	addr   *transport.Address
	o      Options
	dial   transport.Dial // by the address's scheme (schemes)
	failed *http.Log      // a request the HTTP client failed as curl would
	// promisorSaid: the session said that the server's promisor remotes
	// are not taken (promisorRefused).
	promisorSaid bool
}

// Options is what Open needs from the helper.
type Options struct {
	Env proc.Env
	// Config returns git's configuration (every scope, the repository's
	// when there is one, git -c).
	Config func() (repo.Config, error)
	// Stderr takes the warnings; the caller removes the Redactor's
	// secrets from what is written to it.
	Stderr io.Writer
	// Redactor is told of every secret of the upstream: passwords and
	// header values.
	Redactor *transport.Redactor
	// Dial, when set, replaces the transport chosen from the URL's
	// protocol (tests).
	Dial transport.Dial
	// Trace, when set, takes every packet of every session
	// (GIT_TRACE_PACKET).
	Trace *PacketTrace
	// Trace2, when set, takes the negotiations' trace2 events
	// (GIT_TRACE2_EVENT).
	Trace2 *report.Trace2
}

// Open checks the address git passed the helper (its second argument, or
// the remote's URL) as git checks a URL before it connects: its syntax,
// anything ssh or upload-pack could take for an option (the scheme's own
// check), and git's protocol policy. Nothing is sent yet.
func Open(ctx context.Context, addr string, o Options) (*Remote, error) {
	if name, ok := helperPrefix(addr); ok {
		return nil, otherHelper(name, o)
	}
	a, err := transport.ParseAddress(addr)
	if err != nil {
		return nil, err
	}
	if check := schemes[a.Scheme].check; check != nil {
		if err := check(a, addr); err != nil {
			return nil, err
		}
	}
	cfg, err := o.Config()
	if err != nil {
		return nil, err
	}
	if err := checkAllowed(cfg, o.Env, a.Scheme); err != nil {
		return nil, err
	}
	o.Redactor.Add(a.Password)
	if a.Password != "" {
		fmt.Fprintf(o.Stderr, "warning: the URL '%s' carries a password, which git shows and stores as typed (in FETCH_HEAD, the config and its messages); use a credential helper instead (see 'git help credentials')\n", a.Safe)
	}
	r := &Remote{URL: a.Safe, ctx: ctx, addr: a, o: o, failed: &http.Log{}}
	if r.dial = o.Dial; r.dial == nil {
		r.dial = schemes[a.Scheme].dial(r, cfg)
	}
	return r, nil
}

// session opens a session with service and reads its advertisement with
// read; a session whose advertisement cannot be read is closed, and the
// failure explained.
func (r *Remote) session(service string, read transport.Advertised) (transport.Transport, error) {
	cfg, err := r.o.Config()
	if err != nil {
		return nil, err
	}
	version, err := protocolVersion(cfg, r.o.Env.Getenv)
	if err != nil {
		return nil, err
	}
	t := traceTransport(r.dial(), r.o.Trace)
	err = t.Handshake(r.ctx, service, versionFor(version, service), read)
	if err == nil {
		return t, nil
	}
	if !errors.Is(err, errEmptyRemote) {
		err = t.Explain(err)
	}
	t.Close() // after an empty advertisement, a flush: nothing is wanted
	return nil, err
}

// HTTP reports whether the upstream is reached over smart HTTP.
func (r *Remote) HTTP() bool {
	return r.o.Dial == nil && r.addr.Scheme.Web()
}

// Failure is git's fatal line for the first request the HTTP client failed
// as curl would have: that failure is why the session fails, whatever
// became of the error on its way up (a decoder may quote a read error as
// text).
func (r *Remote) Failure() (string, bool) {
	if r == nil {
		return "", false
	}
	return r.failed.Describe(r.URL)
}

// helperPrefix returns the transport an address names in git's
// "<transport>::<address>" form (ext::, fd::, another remote helper's),
// which git gives that helper, not a URL.
func helperPrefix(addr string) (string, bool) {
	name, _, ok := strings.Cut(addr, "::")
	if !ok || name == "" {
		return "", false
	}
	for i, c := range name {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	return name, true
}

// otherHelper refuses an address inside durable:: that names a transport
// of its own (durable::ext::…, durable::fd::…): as git refuses it where
// its protocol policy does (protocol.<name>.allow, GIT_ALLOW_PROTOCOL; ext
// is never allowed by default), else because the helper reaches an
// upstream over git's own transports only — it never runs a command an
// address names, nor reads a descriptor.
func otherHelper(name string, o Options) error {
	cfg, err := o.Config()
	if err != nil {
		return err
	}
	if err := checkAllowed(cfg, o.Env, transport.Scheme(name)); err != nil {
		return err
	}
	return fmt.Errorf("durable:: fetches over file, git, ssh, http and https: '%s::' names another remote helper", name)
}
