package upstream

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// parseEndpoint turns the address git passes as the helper's second argument
// into a go-git endpoint. git strips "durable::" before it runs the helper,
// so the rest is any URL git accepts; "durable://host/path", which git passes
// whole, means https://host/path.
func parseEndpoint(addr string) (*transport.Endpoint, error) {
	if rest, ok := strings.CutPrefix(addr, "durable://"); ok {
		addr = "https://" + rest
	}
	if addr == "" {
		return nil, errors.New("no URL to fetch from or push to")
	}
	if scheme, _, _ := strings.Cut(addr, "://"); strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https") {
		// Before net/url decodes it: git's own check, on git's parts.
		if err := checkCredentialURL(addr); err != nil {
			return nil, err
		}
	}
	ep, err := transport.NewEndpoint(addr)
	if err != nil || (ep.Protocol == "http" || ep.Protocol == "https") && ep.Host == "" {
		// No host: what git credential would be asked about is not where
		// the requests go.
		return nil, fmt.Errorf("invalid URL '%s'", Anonymize(addr))
	}
	switch ep.Protocol {
	case "file", "ssh", "git", "http", "https":
		return ep, nil
	}
	return nil, fmt.Errorf("unsupported protocol '%s' in '%s'", ep.Protocol, Anonymize(addr))
}

// Anonymize removes the user information from an address, as git's
// transport_anonymize_url does before it prints one: "https://u:p@h/r" gives
// "https://h/r", "u@h:r" gives "h:r"; local paths are left alone.
func Anonymize(addr string) string {
	if rest, ok := strings.CutPrefix(addr, "durable://"); ok {
		return "durable://" + Anonymize("https://" + rest)[len("https://"):]
	}
	if i := strings.Index(addr, "://"); i >= 0 {
		auth := addr[i+3:]
		if end := strings.IndexAny(auth, "/?#"); end >= 0 {
			auth = auth[:end]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			return addr[:i+3] + addr[i+3+at+1:]
		}
		return addr
	}
	colon := strings.IndexByte(addr, ':')
	slash := strings.IndexByte(addr, '/')
	at := strings.IndexByte(addr, '@')
	if colon > 0 && (slash < 0 || colon < slash) && at >= 0 && at < colon {
		return addr[at+1:] // scp-like user@host:path
	}
	return addr
}

// Redactor removes secrets (passwords, header values) from every message
// the helper prints.
type Redactor struct {
	mu      sync.Mutex
	secrets []string
}

// Add registers a secret, with its URL-escaped spellings.
func (r *Redactor) Add(s string) {
	if s == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range []string{s, url.PathEscape(s), url.QueryEscape(s), strings.TrimPrefix(url.UserPassword("", s).String(), ":")} {
		if v != "" && !contains(r.secrets, v) {
			r.secrets = append(r.secrets, v)
		}
	}
}

// Scrub returns s with every secret replaced.
func (r *Redactor) Scrub(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.secrets {
		s = strings.ReplaceAll(s, v, "<redacted>")
	}
	return s
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
