package http

import (
	"fmt"
	nethttp "net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// auth authenticates HTTP requests the way git's http.c does: the
// http.extraHeader values that apply to the URL, and Basic credentials from
// the URL or from git credential. Each goes only to the origin (scheme,
// host, port) it was given for: every later session goes to the base a
// redirect moved the repository to, and a header or password for the
// first host must not follow it there.
type auth struct {
	headers [][2]string
	origin  *url.URL // where the headers belong

	mu         sync.Mutex
	user, pass string
	basic      bool
	credOrigin *url.URL // where user and pass belong
}

// newAuth collects the extra headers http.extraHeader gives for the
// endpoint's URL, and its URL credentials.
func newAuth(hc config, ep *transport.Address, red *transport.Redactor) (*auth, error) {
	o := ep.Origin()
	a := &auth{origin: o, credOrigin: o, user: ep.User, pass: ep.Password, basic: ep.User != "" || ep.Password != ""}
	var err error
	hc.each("extraHeader", func(e repo.Entry) {
		if e.Value == "" {
			a.headers = nil // an empty value resets the list, as in git
			return
		}
		name, value, ok := strings.Cut(e.Value, ":")
		if !ok {
			err = fmt.Errorf("invalid http.extraHeader (no ':')")
			return
		}
		value = strings.TrimSpace(value)
		red.Add(value)
		a.headers = append(a.headers, [2]string{strings.TrimSpace(name), value})
	})
	return a, err
}

// headerNames lists the names of the extra headers.
func (a *auth) headerNames() []string {
	var names []string
	for _, h := range a.headers {
		names = append(names, h[0])
	}
	return names
}

// SetAuth adds the headers and credentials that belong to the request's
// origin.
func (a *auth) SetAuth(r *nethttp.Request) {
	if sameOrigin(a.origin, r.URL) {
		for _, h := range a.headers {
			r.Header.Add(h[0], h[1])
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.basic && sameOrigin(a.credOrigin, r.URL) {
		r.SetBasicAuth(a.user, a.pass)
	}
}

// Name names the method.
func (a *auth) Name() string { return "git-remote-durable" }

// String names the method; it never shows a secret.
func (a *auth) String() string { return a.Name() }

// known returns the user and whether there is a password for the
// endpoint's origin.
func (a *auth) known(ep *transport.Address) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.basic || !sameOrigin(a.credOrigin, ep.Origin()) {
		return "", false
	}
	return a.user, a.pass != ""
}

// setBasic sets the credentials git credential gave for the endpoint.
func (a *auth) setBasic(user, pass string, ep *transport.Address) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.user, a.pass, a.basic, a.credOrigin = user, pass, true, ep.Origin()
}
