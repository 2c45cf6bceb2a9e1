package remote

import (
	"errors"
	"net/http"
	"os"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/file"
	"github.com/go-git/go-git/v5/plumbing/transport/git"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/git-durable/git-durable/internal/repo"
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
		a, err := newHTTPAuth(cfg, h.ep, h.red)
		if err != nil {
			return nil, err
		}
		if err := httpTLS(cfg, h.ep); err != nil {
			return nil, err
		}
		h.auth = a
		h.tr = githttp.NewClient(&http.Client{Transport: http.DefaultTransport})
	case "ssh":
		h.tr = newSSH(cfg, h.env.Getenv)
	case "git":
		h.tr = git.DefaultClient
	default:
		h.tr = file.DefaultClient
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
		s, ar, err := h.tryAdvertise(tr, open)
		a, isHTTP := h.auth.(*httpAuth)
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
		case a.hasPassword():
			return nil, nil, errAuthFailed // from the URL
		}
		c, ferr := h.fill(a.user)
		if ferr != nil {
			return nil, nil, ferr
		}
		h.cred = c
		a.setBasic(c.user, c.pass)
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

// httpTLS applies http.sslVerify and http.sslCAInfo to the endpoint.
func httpTLS(cfg repo.Config, ep *transport.Endpoint) error {
	if v, err := cfg.Bool("http.sslVerify", true); err != nil {
		return err
	} else if !v {
		ep.InsecureSkipTLS = true
	}
	if e, ok := cfg.Get("http.sslCAInfo"); ok && e.Value != "" {
		b, err := os.ReadFile(e.Value)
		if err != nil {
			return err
		}
		ep.CaBundle = b
	}
	return nil
}
