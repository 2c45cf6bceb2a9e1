package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
)

// Remote is the upstream of one session of the helper: where it is, and
// the dialer its scheme names (a transport's stream, or smart HTTP with
// the credentials that reach it). It lives as long as the context Open was
// given; the end of that context stops every command and connection of its
// transports.
type Remote struct {
	// URL is the address without credentials, as messages name it.
	URL string

	ctx context.Context
	ep  *Address // moved by a redirect of the first HTTP request
	o   Options
	d   dialer // made once, by the address's scheme
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

// setup makes the dialer for the address's scheme once: a stream's
// transport, or smart HTTP's client with its settings and credentials.
func (r *Remote) setup() error {
	if r.d != nil {
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
		r.d = &streamDialer{ctx: r.ctx, tr: r.o.Transport}
	case s.stream:
		r.d = &streamDialer{ctx: r.ctx, tr: s.transport(cfg, r.o.Env, r.ep)}
	default:
		d, err := newHTTPDialer(r, cfg)
		if err != nil {
			return err
		}
		r.d = d
	}
	return nil
}

// session opens a session with service and reads its advertisement with
// read, as many times as the dialer asks (an HTTP server wanting
// credentials the helper had not got).
func (r *Remote) session(service string, read func(*bufio.Reader) error) (wire, error) {
	for {
		if err := r.setup(); err != nil {
			return nil, err
		}
		w, err := r.d.open(service, versionFor(r.version, service))
		if err != nil {
			return nil, err
		}
		err = r.advertised(w, read)
		again, err := r.d.answered(w, err)
		if err != nil {
			return nil, err
		}
		if !again {
			return w, nil
		}
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
	d, ok := r.d.(*httpDialer)
	if !ok {
		return "", false
	}
	if te := d.cut.last(); te != nil {
		return te.describe(r.URL), true
	}
	return "", false
}
