package upstream

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/git-durable/git-durable/internal/repo"
)

// httpAuth authenticates HTTP requests the way git's http.c does: the
// http.extraHeader values that apply to the URL, and Basic credentials from
// the URL or from git credential. Each goes only to the origin (scheme,
// host, port) it was given for: every later session goes to the base a
// redirect moved the repository to, and a header or password for the
// first host must not follow it there.
type httpAuth struct {
	headers [][2]string
	origin  *url.URL // where the headers belong

	mu         sync.Mutex
	user, pass string
	basic      bool
	credOrigin *url.URL // where user and pass belong
}

// newHTTPAuth collects the extra headers http.extraHeader gives for the
// endpoint's URL, and its URL credentials.
func newHTTPAuth(hc httpConfig, ep *Address, red *Redactor) (*httpAuth, error) {
	o := originOf(ep)
	a := &httpAuth{origin: o, credOrigin: o, user: ep.User, pass: ep.Password, basic: ep.User != "" || ep.Password != ""}
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

// originOf is the endpoint's scheme, host and port as a URL.
func originOf(ep *Address) *url.URL {
	u := &url.URL{Scheme: ep.Scheme, Host: ep.Host}
	if ep.Port != 0 {
		u.Host = fmt.Sprintf("%s:%d", ep.Host, ep.Port)
	}
	return u
}

// headerNames lists the names of the extra headers.
func (a *httpAuth) headerNames() []string {
	var names []string
	for _, h := range a.headers {
		names = append(names, h[0])
	}
	return names
}

// SetAuth adds the headers and credentials that belong to the request's
// origin.
func (a *httpAuth) SetAuth(r *http.Request) {
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
func (a *httpAuth) Name() string { return "git-remote-durable" }

// String names the method; it never shows a secret.
func (a *httpAuth) String() string { return a.Name() }

// known returns the user and whether there is a password for the
// endpoint's origin.
func (a *httpAuth) known(ep *Address) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.basic || !sameOrigin(a.credOrigin, originOf(ep)) {
		return "", false
	}
	return a.user, a.pass != ""
}

// setBasic sets the credentials git credential gave for the endpoint.
func (a *httpAuth) setBasic(user, pass string, ep *Address) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.user, a.pass, a.basic, a.credOrigin = user, pass, true, originOf(ep)
}
