package transport

import (
	"net/url"
	"slices"
	"strings"
	"sync"
)

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
		if v != "" && !slices.Contains(r.secrets, v) {
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
