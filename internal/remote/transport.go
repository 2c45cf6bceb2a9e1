package remote

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// transport returns the transport for the endpoint's protocol, with its
// authentication, made once.
func (h *helper) transport() (transport.Transport, error) {
	if h.tr != nil {
		return h.tr, nil
	}
	if h.opts.Transport != nil {
		h.tr = h.opts.Transport
		return h.tr, nil
	}
	cfg, err := h.config()
	if err != nil {
		return nil, err
	}
	switch h.ep.Protocol {
	case "http", "https":
		hc := newHTTPConfig(cfg, matchingURL(h.ep))
		a, err := newHTTPAuth(hc, h.ep, h.red)
		if err != nil {
			return nil, err
		}
		h.cut = &transferLog{}
		c, err := newHTTPClient(hc, h.ep.Protocol, h.env, h.red, a.headerNames(), h.cut, func(msg string) {
			fmt.Fprintf(h.errw, "warning: %s\n", msg)
		})
		if err != nil {
			return nil, err
		}
		h.auth = a
		h.tap = &advertTap{next: c.Transport}
		c.Transport = h.tap
		// go-git follows every redirect its own checks allow; the
		// client's policy (http.followRedirects) decides.
		h.tr = githttp.NewClientWithOptions(c, &githttp.ClientOptions{RedirectPolicy: githttp.FollowRedirects})
	case "ssh":
		h.tr = newSSH(h.ctx, cfg, h.env.Getenv)
	case "git":
		host, path, err := daemonTarget(h.addr)
		if err != nil {
			return nil, err
		}
		h.tr = newDaemon(h.ctx, host, path)
	default:
		h.tr = newLocal(h.ctx)
	}
	return h.tr, nil
}

// advertise opens a session with open and reads the upstream's
// advertisement. When an HTTP server asks for credentials the helper has
// not got, it asks git credential fill (once) and tries again, then tells
// git credential whether they worked.
func (h *helper) advertise(open func(transport.Transport) (transport.Session, error)) (transport.Session, *packp.AdvRefs, error) {
	tr, err := h.transport()
	if err != nil {
		return nil, nil, err
	}
	for {
		base := credentialURL(h.ep)
		s, ar, err := h.tryAdvertise(tr, open)
		a, isHTTP := h.auth.(*httpAuth)
		if moved := credentialURL(h.ep); isHTTP && moved != base {
			// go-git moved the endpoint (h.ep) to where the refs were
			// found; every later request goes there, as git's do, and
			// its credentials are asked for that URL: git checks it again.
			if cerr := checkCredentialURL(moved); cerr != nil {
				if s != nil {
					s.Close()
				}
				return nil, nil, cerr
			}
			fmt.Fprintf(h.errw, "warning: redirecting to %s/\n", printable(moved))
		}
		user, hasPass := "", false
		if isHTTP {
			user, hasPass = a.known(h.ep)
		}
		switch {
		case err == nil:
			if h.cred != nil && !h.cred.approved {
				h.cred.approved = true
				h.credential("approve", h.cred)
			}
			return s, ar, nil
		case !isHTTP || !errors.Is(err, transport.ErrAuthenticationRequired):
			return nil, nil, err
		case h.cred != nil:
			h.credential("reject", h.cred)
			return nil, nil, errAuthFailed
		case hasPass:
			return nil, nil, errAuthFailed // from the URL
		}
		c, ferr := h.fill(user)
		if ferr != nil {
			return nil, nil, ferr
		}
		h.cred = c
		a.setBasic(c.user, c.pass, h.ep)
	}
}

func (h *helper) tryAdvertise(tr transport.Transport, open func(transport.Transport) (transport.Session, error)) (transport.Session, *packp.AdvRefs, error) {
	s, err := open(tr)
	if err != nil {
		return nil, nil, err
	}
	ar, err := s.AdvertisedReferencesContext(h.ctx)
	if err != nil {
		s.Close()
		if ferr := formatFromError(err, h.url); ferr != nil {
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

// errAuthFailed is git's "Authentication failed" for wrong or missing
// credentials.
var errAuthFailed = errors.New("authentication failed")
