package remote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/git-durable/git-durable/internal/repo"
)

// httpAuth authenticates HTTP requests the way git's http.c does: the
// http.extraHeader values that apply to the URL on every request, and Basic
// credentials from the URL or from git credential.
type httpAuth struct {
	headers [][2]string

	mu         sync.Mutex
	user, pass string
	basic      bool
}

// newHTTPAuth collects the extra headers for ep and its URL credentials.
func newHTTPAuth(cfg repo.Config, ep *transport.Endpoint, red *redactor) (*httpAuth, error) {
	a := &httpAuth{user: ep.User, pass: ep.Password, basic: ep.User != "" || ep.Password != ""}
	target := &url.URL{Scheme: ep.Protocol, Host: ep.Host, Path: ep.Path}
	if ep.Port != 0 {
		target.Host = fmt.Sprintf("%s:%d", ep.Host, ep.Port)
	}
	for _, e := range cfg {
		if !strings.HasPrefix(e.Key, "http.") || !strings.HasSuffix(e.Key, ".extraheader") {
			continue
		}
		pattern := strings.TrimSuffix(strings.TrimPrefix(e.Key, "http."), ".extraheader")
		if pattern != "" && !urlMatches(strings.TrimSuffix(pattern, "."), target, ep.User) {
			continue
		}
		if e.Value == "" {
			a.headers = nil // an empty value resets the list, as in git
			continue
		}
		name, value, ok := strings.Cut(e.Value, ":")
		if !ok {
			return nil, fmt.Errorf("invalid http.extraHeader (no ':')")
		}
		value = strings.TrimSpace(value)
		red.add(value)
		a.headers = append(a.headers, [2]string{strings.TrimSpace(name), value})
	}
	return a, nil
}

// urlMatches is git's urlmatch for http.<url>.* keys, simplified: same
// scheme, host and port, the pattern's path a prefix of the URL's at a '/'
// boundary, and the pattern's user, if any, the URL's user.
func urlMatches(pattern string, target *url.URL, user string) bool {
	p, err := url.Parse(pattern)
	if err != nil || !strings.EqualFold(p.Scheme, target.Scheme) || !strings.EqualFold(p.Hostname(), target.Hostname()) {
		return false
	}
	if port(p) != port(target) {
		return false
	}
	if p.User != nil && p.User.Username() != user {
		return false
	}
	pp := strings.TrimSuffix(p.Path, "/")
	return pp == "" || target.Path == pp || strings.HasPrefix(target.Path, pp+"/")
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// SetAuth adds the headers and credentials to a request.
func (a *httpAuth) SetAuth(r *http.Request) {
	for _, h := range a.headers {
		r.Header.Add(h[0], h[1])
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.basic {
		r.SetBasicAuth(a.user, a.pass)
	}
}

// Name names the method.
func (a *httpAuth) Name() string { return "git-remote-durable" }

// String names the method; it never shows a secret.
func (a *httpAuth) String() string { return a.Name() }

func (a *httpAuth) hasPassword() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pass != ""
}

func (a *httpAuth) setBasic(user, pass string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.user, a.pass, a.basic = user, pass, true
}

// credential is what git credential fill answered.
type credential struct {
	lines      []string // every attribute, to hand back to approve/reject
	user, pass string
	approved   bool
}

// fill asks git credential fill for the URL's credentials (user already
// known, if any): the user's credential helpers, or a prompt on the
// terminal, as for git itself.
func (h *helper) fill(user string) (*credential, error) {
	in := "url=" + credentialURL(h.ep) + "\n"
	if user != "" {
		in += "username=" + user + "\n"
	}
	out, err := runGit(h.ctx, []byte(in+"\n"), "credential", "fill")
	if err != nil {
		var ge *repo.GitError
		if errors.As(err, &ge) {
			// git's own "could not read Username for …" line
			msg := strings.TrimSpace(ge.Stderr)
			if i := strings.LastIndex(msg, "\n"); i >= 0 {
				msg = msg[i+1:]
			}
			return nil, errors.New(strings.TrimPrefix(msg, "fatal: "))
		}
		return nil, err
	}
	c := &credential{}
	for _, l := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		c.lines = append(c.lines, l)
		switch k {
		case "username":
			c.user = v
		case "password":
			c.pass = v
			h.red.add(v)
		}
	}
	if c.pass == "" {
		return nil, errAuthFailed
	}
	return c, nil
}

// credential runs git credential approve or reject with c; a failure only
// loses the cache update, as in git.
func (h *helper) credential(verb string, c *credential) {
	in := strings.Join(c.lines, "\n") + "\n\n"
	if _, err := runGit(context.WithoutCancel(h.ctx), []byte(in), "credential", verb); err != nil {
		fmt.Fprintf(h.errw, "warning: git credential %s failed\n", verb)
	}
}

// credentialURL is the endpoint's URL without credentials, which git
// credential splits into protocol, host and (with useHttpPath) path.
func credentialURL(ep *transport.Endpoint) string {
	u := &url.URL{Scheme: ep.Protocol, Host: ep.Host, Path: ep.Path}
	if ep.Port != 0 {
		u.Host = fmt.Sprintf("%s:%d", ep.Host, ep.Port)
	}
	return u.String()
}
