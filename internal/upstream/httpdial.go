package upstream

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/repo"
)

// httpDialer reaches the upstream over smart HTTP: each session is a
// smartHTTP, its requests sent by one client with the settings of the
// remote's URL (http.<url>.*), the credentials that reach it (asked of git
// credential once, and told back whether they worked), and the log of the
// request the client failed. A redirect of the first request moves the
// Remote's address, which every later request follows.
type httpDialer struct {
	r      *Remote
	client *http.Client
	auth   *httpAuth
	cred   *credential  // from git credential fill, once
	cut    *transferLog // a request the client failed
	asked  string       // the credential URL the last session was opened for
	// empty is http.emptyAuth=true: a server that asks for credentials
	// first gets empty ones (Basic ":"), as curl sends them for git,
	// before git credential is asked; emptySent, once they were.
	empty, emptySent bool
}

// newHTTPDialer sets up the client for r's address with the settings cfg
// holds for it.
func newHTTPDialer(r *Remote, cfg repo.Config) (*httpDialer, error) {
	hc := newHTTPConfig(cfg, matchingURL(r.ep))
	a, err := newHTTPAuth(hc, r.ep, r.o.Redactor)
	if err != nil {
		return nil, err
	}
	d := &httpDialer{r: r, auth: a, cut: &transferLog{}}
	if e, ok := hc.get("emptyAuth"); ok && e.Value != "auto" {
		if d.empty, err = hc.bool("emptyAuth", false); err != nil {
			return nil, err
		}
	}
	d.client, err = newHTTPClient(hc, r.ep.Scheme, r.o.Env, r.o.Redactor, a.headerNames(), d.cut, func(msg string) {
		fmt.Fprintf(r.o.Stderr, "warning: %s\n", msg)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (d *httpDialer) open(service string, version int) (wire, error) {
	d.asked = credentialURL(d.r.ep)
	return &smartHTTP{d: d, service: service, version: version}, nil
}

// answered follows a redirect of the session's first request (its
// credentials are asked for the URL it moved to: git checks that URL
// again), asks git credential fill for credentials when the server wants
// some the dialer has not got, and tells git credential whether those it
// got worked.
func (d *httpDialer) answered(w wire, err error) (bool, error) {
	r := d.r
	if moved := credentialURL(r.ep); moved != d.asked {
		if cerr := checkCredentialURL(moved); cerr != nil {
			if err == nil {
				w.close()
			}
			return false, cerr
		}
		fmt.Fprintf(r.o.Stderr, "warning: redirecting to %s/\n", mask.Printable(moved))
	}
	user, hasPass := d.auth.known(r.ep)
	switch {
	case err == nil:
		if d.cred != nil && !d.cred.approved {
			d.cred.approved = true
			r.credential("approve", d.cred)
		}
		return false, nil
	case !errors.Is(err, errAuthRequired):
		return false, err
	case d.cred != nil:
		r.credential("reject", d.cred)
		return false, errAuthFailed
	case hasPass:
		return false, errAuthFailed // from the URL
	case d.empty && !d.emptySent && user == "":
		d.emptySent = true
		d.auth.setBasic("", "", r.ep)
		return true, nil
	}
	c, err := r.fill(user)
	if err != nil {
		return false, err
	}
	d.cred = c
	d.auth.setBasic(c.user, c.pass, r.ep)
	return true, nil
}
