package http

import (
	"context"
	"errors"
	"fmt"
	"io"
	nethttp "net/http"
	"sync"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// Options is what smart HTTP needs of the helper.
type Options struct {
	// Config returns git's configuration: the http.<url>.* settings.
	Config func() (repo.Config, error)
	Env    proc.Env
	// Stderr takes the warnings.
	Stderr io.Writer
	// Redactor is told of every secret: passwords and header values.
	Redactor *transport.Redactor
	// Failed records the first request the client failed as curl would.
	Failed *Log
}

// Dial returns the sessions with the upstream at a over smart HTTP. They
// share one client, set up at the first session with the settings of a's
// URL (http.<url>.*), the credentials that reach it (asked of git
// credential once, and told back whether they worked), and the address: a
// redirect of a session's first request moves it, and every later request
// follows.
func Dial(a *transport.Address, o Options) transport.Dial {
	d := &dialer{addr: a, safe: a.Safe, o: o, creds: &transport.Credentials{Redactor: o.Redactor, Stderr: o.Stderr}}
	return func() transport.Transport {
		d.once.Do(d.setup)
		return &session{d: d}
	}
}

// dialer is what the sessions of one upstream share.
type dialer struct {
	addr   *transport.Address // moved by a redirect of the first request
	safe   string             // the address as messages name it
	o      Options
	once   sync.Once
	err    error // of the setup
	client *nethttp.Client
	auth   *auth
	creds  *transport.Credentials
	cred   *transport.Credential // from git credential fill, once
	told   bool                  // cred was approved
	asked  string                // the credential URL the last session was opened for
	// empty is http.emptyAuth=true: a server that asks for credentials
	// first gets empty ones (Basic ":"), as curl sends them for git,
	// before git credential is asked; emptySent, once they were.
	empty, emptySent bool
}

// setup makes the client with the settings the configuration holds for
// the address.
func (d *dialer) setup() {
	cfg, err := d.o.Config()
	if err != nil {
		d.err = err
		return
	}
	hc := newConfig(cfg, d.addr)
	if d.auth, d.err = newAuth(hc, d.addr, d.o.Redactor); d.err != nil {
		return
	}
	if e, ok := hc.get("emptyAuth"); ok && e.Value != "auto" {
		if d.empty, d.err = hc.bool("emptyAuth", false); d.err != nil {
			return
		}
	}
	d.client, d.err = newClient(hc, d.addr.Scheme, d.o.Env, d.o.Redactor, d.auth.headerNames(), d.o.Failed, func(msg string) {
		fmt.Fprintf(d.o.Stderr, "warning: %s\n", msg)
	})
}

// answered follows a redirect of the session's first request (its
// credentials are asked for the URL it moved to: git checks that URL
// again), asks git credential fill for credentials when the server wants
// some the dialer has not got, and tells git credential whether those it
// got worked. It says whether to read the advertisement again, and else
// the session's error.
func (d *dialer) answered(ctx context.Context, s *session, err error) (bool, error) {
	if moved := d.addr.CredentialURL(); moved != d.asked {
		if cerr := transport.CheckCredentialURL(moved); cerr != nil {
			if err == nil {
				s.Close()
			}
			return false, cerr
		}
		fmt.Fprintf(d.o.Stderr, "warning: redirecting to %s/\n", mask.Printable(moved))
	}
	user, hasPass := d.auth.known(d.addr)
	switch {
	case err == nil:
		if d.cred != nil && !d.told {
			d.told = true
			d.creds.Approve(ctx, d.cred)
		}
		return false, nil
	case !errors.Is(err, transport.ErrAuthRequired):
		return false, err
	case d.cred != nil:
		d.creds.Reject(ctx, d.cred)
		return false, transport.ErrAuthFailed
	case hasPass:
		return false, transport.ErrAuthFailed // from the URL
	case d.empty && !d.emptySent && user == "":
		d.emptySent = true
		d.auth.setBasic("", "", d.addr)
		return true, nil
	}
	c, err := d.creds.Fill(ctx, d.addr, user)
	if err != nil {
		return false, err
	}
	d.cred = c
	d.auth.setBasic(c.User, c.Password, d.addr)
	return true, nil
}
