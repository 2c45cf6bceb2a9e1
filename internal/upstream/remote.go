package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/repo"
)

// Remote is the upstream of one session of the helper: where it is, the
// transport its protocol names, and the credentials that reach it (asked
// of git credential once, and told back whether they worked). It lives as
// long as the context Open was given; the end of that context stops every
// command and connection of its transports.
type Remote struct {
	// URL is the address without credentials, as messages name it.
	URL string

	ctx  context.Context
	addr string // the address git gave, durable:// mapped
	ep   *transport.Endpoint
	o    Options
	tr   transport.Transport
	auth transport.AuthMethod // nil: the transport's default
	cred *credential          // from git credential fill, once
	tap  *advertTap           // HTTP only: streams list's advertisement
	cut  *transferLog         // HTTP only: a request the client failed
}

// Options is what Open needs from the helper.
type Options struct {
	Env cli.Env
	// Config returns git's configuration (every scope, the repository's
	// when there is one, git -c).
	Config func() (repo.Config, error)
	// Stderr takes the warnings; the caller removes the Redactor's
	// secrets from what is written to it.
	Stderr io.Writer
	// Redactor is told of every secret of the upstream: passwords and
	// header values.
	Redactor *Redactor
	// Transport, when set, replaces the transport chosen from the URL's
	// protocol; tests use go-git's in-process server.
	Transport Transport
}

// Transport is a go-git transport, as Options.Transport takes it.
type Transport = transport.Transport

// Open checks the address git passed the helper (its second argument, or
// the remote's URL) as git checks a URL before it connects: its syntax,
// anything ssh or upload-pack could take for an option, and git's
// protocol policy. Nothing is sent yet.
func Open(ctx context.Context, addr string, o Options) (*Remote, error) {
	// go-git drops thin-pack and multi_ack_detailed from every
	// advertisement unless told they are supported.
	transport.UnsupportedCapabilities = nil
	r := &Remote{URL: Anonymize(addr), ctx: ctx, addr: addr, o: o}
	ep, err := parseEndpoint(addr)
	if err != nil {
		return nil, err
	}
	if err := checkEndpoint(addr, ep); err != nil {
		return nil, err
	}
	cfg, err := o.Config()
	if err != nil {
		return nil, err
	}
	if err := checkAllowed(cfg, o.Env, ep.Protocol); err != nil {
		return nil, err
	}
	r.ep = ep
	o.Redactor.Add(ep.Password)
	if ep.Password != "" {
		fmt.Fprintf(o.Stderr, "warning: the URL '%s' carries a password, which git shows and stores as typed (in FETCH_HEAD, the config and its messages); use a credential helper instead (see 'git help credentials')\n", r.URL)
	}
	return r, nil
}

// transport returns the transport for the endpoint's protocol, with its
// authentication, made once.
func (r *Remote) transport() (transport.Transport, error) {
	if r.tr != nil {
		return r.tr, nil
	}
	if r.o.Transport != nil {
		r.tr = r.o.Transport
		return r.tr, nil
	}
	cfg, err := r.o.Config()
	if err != nil {
		return nil, err
	}
	switch r.ep.Protocol {
	case "http", "https":
		hc := newHTTPConfig(cfg, matchingURL(r.ep))
		a, err := newHTTPAuth(hc, r.ep, r.o.Redactor)
		if err != nil {
			return nil, err
		}
		r.cut = &transferLog{}
		c, err := newHTTPClient(hc, r.ep.Protocol, r.o.Env, r.o.Redactor, a.headerNames(), r.cut, func(msg string) {
			fmt.Fprintf(r.o.Stderr, "warning: %s\n", msg)
		})
		if err != nil {
			return nil, err
		}
		r.auth = a
		r.tap = &advertTap{next: c.Transport}
		c.Transport = r.tap
		// go-git follows every redirect its own checks allow; the
		// client's policy (http.followRedirects) decides.
		r.tr = githttp.NewClientWithOptions(c, &githttp.ClientOptions{RedirectPolicy: githttp.FollowRedirects})
	case "ssh":
		r.tr = newSSH(r.ctx, cfg, r.o.Env.Getenv)
	case "git":
		host, path, err := daemonTarget(r.addr)
		if err != nil {
			return nil, err
		}
		r.tr = newDaemon(r.ctx, host, path)
	default:
		r.tr = newLocal(r.ctx)
	}
	return r.tr, nil
}

// advertise opens a session with open and reads the upstream's
// advertisement. When an HTTP server asks for credentials the helper has
// not got, it asks git credential fill (once) and tries again, then tells
// git credential whether they worked.
func (r *Remote) advertise(open func(transport.Transport) (transport.Session, error)) (transport.Session, *packp.AdvRefs, error) {
	tr, err := r.transport()
	if err != nil {
		return nil, nil, err
	}
	for {
		base := credentialURL(r.ep)
		s, ar, err := r.tryAdvertise(tr, open)
		a, isHTTP := r.auth.(*httpAuth)
		if moved := credentialURL(r.ep); isHTTP && moved != base {
			// go-git moved the endpoint (r.ep) to where the refs were
			// found; every later request goes there, as git's do, and
			// its credentials are asked for that URL: git checks it again.
			if cerr := checkCredentialURL(moved); cerr != nil {
				if s != nil {
					s.Close()
				}
				return nil, nil, cerr
			}
			fmt.Fprintf(r.o.Stderr, "warning: redirecting to %s/\n", cli.Printable(moved))
		}
		user, hasPass := "", false
		if isHTTP {
			user, hasPass = a.known(r.ep)
		}
		switch {
		case err == nil:
			if r.cred != nil && !r.cred.approved {
				r.cred.approved = true
				r.credential("approve", r.cred)
			}
			return s, ar, nil
		case !isHTTP || !errors.Is(err, transport.ErrAuthenticationRequired):
			return nil, nil, err
		case r.cred != nil:
			r.credential("reject", r.cred)
			return nil, nil, errAuthFailed
		case hasPass:
			return nil, nil, errAuthFailed // from the URL
		}
		c, ferr := r.fill(user)
		if ferr != nil {
			return nil, nil, ferr
		}
		r.cred = c
		a.setBasic(c.user, c.pass, r.ep)
	}
}

func (r *Remote) tryAdvertise(tr transport.Transport, open func(transport.Transport) (transport.Session, error)) (transport.Session, *packp.AdvRefs, error) {
	s, err := open(tr)
	if err != nil {
		return nil, nil, err
	}
	ar, err := s.AdvertisedReferencesContext(r.ctx)
	if err != nil {
		s.Close()
		if ferr := formatFromError(err, r.URL); ferr != nil {
			return nil, nil, ferr
		}
		return nil, nil, err
	}
	return s, ar, nil
}

// formatFromError explains an advertisement go-git could not decode because
// its object names are not SHA-1: go-git's error quotes the first line,
// capabilities included.
func formatFromError(err error, url string) error {
	msg := err.Error()
	i := strings.Index(msg, "object-format=")
	if i < 0 {
		return nil
	}
	f := msg[i+len("object-format="):]
	if end := strings.IndexAny(f, " )\n"); end >= 0 {
		f = f[:end]
	}
	if f == "sha1" {
		return nil
	}
	return formatError(url, f)
}

// formatError refuses an upstream whose objects are not named with SHA-1.
func formatError(url, format string) error {
	return fmt.Errorf("'%s' uses the %s object format; git-remote-durable can fetch and push only sha1 repositories (its wire protocol is go-git v5's)", url, format)
}

// errAuthFailed is git's "Authentication failed" for wrong or missing
// credentials.
var errAuthFailed = errors.New("authentication failed")

// Failure is git's fatal line for the first request the HTTP client failed
// as curl would have: that failure is why the session fails, whatever
// became of the error on its way up (go-git quotes some read errors as
// text).
func (r *Remote) Failure() (string, bool) {
	if r == nil {
		return "", false
	}
	if te := r.cut.last(); te != nil {
		return te.describe(r.URL), true
	}
	return "", false
}
