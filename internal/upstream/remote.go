package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/proc"
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

	ctx    context.Context
	ep     *Address // moved by a redirect of the first HTTP request
	o      Options
	tr     Transport    // for a stream: a command or a daemon
	client *http.Client // for smart HTTP, with its credentials:
	auth   *httpAuth
	cred   *credential  // from git credential fill, once
	cut    *transferLog // a request the client failed
	// version is the protocol version asked for (protocolVersion).
	version int
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
	Redactor *Redactor
	// Transport, when set, replaces the transport chosen from the URL's
	// protocol (tests).
	Transport Transport
}

// Open checks the address git passed the helper (its second argument, or
// the remote's URL) as git checks a URL before it connects: its syntax,
// anything ssh or upload-pack could take for an option, and git's
// protocol policy. Nothing is sent yet.
func Open(ctx context.Context, addr string, o Options) (*Remote, error) {
	ep, err := ParseAddress(addr)
	if err != nil {
		return nil, err
	}
	r := &Remote{URL: ep.Safe, ctx: ctx, o: o}
	cfg, err := o.Config()
	if err != nil {
		return nil, err
	}
	if err := checkAllowed(cfg, o.Env, ep.Scheme); err != nil {
		return nil, err
	}
	r.ep = ep
	o.Redactor.Add(ep.Password)
	if ep.Password != "" {
		fmt.Fprintf(o.Stderr, "warning: the URL '%s' carries a password, which git shows and stores as typed (in FETCH_HEAD, the config and its messages); use a credential helper instead (see 'git help credentials')\n", r.URL)
	}
	return r, nil
}

// setup makes the transport for the endpoint's protocol once: the HTTP
// client, with its settings and credentials, or the stream's transport.
func (r *Remote) setup() error {
	if r.tr != nil || r.client != nil {
		return nil
	}
	cfg, err := r.o.Config()
	if err != nil {
		return err
	}
	if r.version, err = protocolVersion(cfg, r.o.Env.Getenv); err != nil {
		return err
	}
	switch s := schemes[r.ep.Scheme]; {
	case r.o.Transport != nil:
		r.tr = r.o.Transport
	case s.stream:
		r.tr = s.transport(cfg, r.o.Env, r.ep)
	default:
		hc := newHTTPConfig(cfg, matchingURL(r.ep))
		a, err := newHTTPAuth(hc, r.ep, r.o.Redactor)
		if err != nil {
			return err
		}
		r.cut = &transferLog{}
		c, err := newHTTPClient(hc, r.ep.Scheme, r.o.Env, r.o.Redactor, a.headerNames(), r.cut, func(msg string) {
			fmt.Fprintf(r.o.Stderr, "warning: %s\n", msg)
		})
		if err != nil {
			return err
		}
		r.client, r.auth = c, a
	}
	return nil
}

// open starts a session with service.
func (r *Remote) open(service string) (wire, error) {
	if err := r.setup(); err != nil {
		return nil, err
	}
	version := versionFor(r.version, service)
	if r.client != nil {
		return &smartHTTP{r: r, service: service, version: version}, nil
	}
	c, err := r.tr.Connect(r.ctx, service, version)
	if err != nil {
		return nil, err
	}
	return newStream(c), nil
}

// session opens a session with service and reads its advertisement with
// read. When an HTTP server asks for credentials the helper has not got,
// it asks git credential fill (once) and tries again, then tells git
// credential whether they worked.
func (r *Remote) session(service string, read func(*bufio.Reader) error) (wire, error) {
	for {
		base := credentialURL(r.ep)
		w, err := r.open(service)
		if err == nil {
			err = r.advertised(w, read)
		}
		isHTTP := r.auth != nil
		if moved := credentialURL(r.ep); isHTTP && moved != base {
			// The first request was redirected: every later request goes
			// where the refs were found, as git's do, and its credentials
			// are asked for that URL: git checks it again.
			if cerr := checkCredentialURL(moved); cerr != nil {
				if err == nil {
					w.close()
				}
				return nil, cerr
			}
			fmt.Fprintf(r.o.Stderr, "warning: redirecting to %s/\n", mask.Printable(moved))
		}
		user, hasPass := "", false
		if isHTTP {
			user, hasPass = r.auth.known(r.ep)
		}
		switch {
		case err == nil:
			if r.cred != nil && !r.cred.approved {
				r.cred.approved = true
				r.credential("approve", r.cred)
			}
			return w, nil
		case !isHTTP || !errors.Is(err, errAuthRequired):
			return nil, err
		case r.cred != nil:
			r.credential("reject", r.cred)
			return nil, errAuthFailed
		case hasPass:
			return nil, errAuthFailed // from the URL
		}
		c, ferr := r.fill(user)
		if ferr != nil {
			return nil, ferr
		}
		r.cred = c
		r.auth.setBasic(c.user, c.pass, r.ep)
	}
}

// advertised reads the advertisement of a session with read; a session
// whose advertisement cannot be read is closed, and the failure explained.
func (r *Remote) advertised(w wire, read func(*bufio.Reader) error) error {
	in, err := w.advertisement()
	if err == nil {
		err = read(in)
	}
	if err == nil {
		return nil
	}
	if errors.Is(err, errEmptyRemote) {
		w.close() // a flush: nothing is wanted
		return err
	}
	err = w.fail(err)
	w.close()
	return err
}

// The failures of an upstream that git names in its own words.
var (
	errAuthFailed   = errors.New("authentication failed")   // wrong credentials, or none to give
	errAuthRequired = errors.New("authentication required") // a 401
	errForbidden    = errors.New("authorization failed")    // a 403
	errNotFound     = errors.New("repository not found")
	errEmptyRemote  = errors.New("remote repository is empty")
)

// HTTP reports whether the upstream is reached over smart HTTP.
func (r *Remote) HTTP() bool {
	return r.o.Transport == nil && !schemes[r.ep.Scheme].stream
}

// Failure is git's fatal line for the first request the HTTP client failed
// as curl would have: that failure is why the session fails, whatever
// became of the error on its way up (a decoder may quote a read error as
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
