package remote

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/repo"
)

// newHTTPClient is the HTTP client for one remote, with git's settings for
// its URL: TLS (newTLSConfig), the proxy, http.curloptResolve,
// http.lowSpeedLimit and http.lowSpeedTime, http.version, http.userAgent
// and http.followRedirects; the settings it cannot honour refuse the run
// (checkUnsupported). headers names the extra headers a redirect to
// another host must drop; cut records a request failed as curl would.
func newHTTPClient(hc httpConfig, scheme string, env cli.Env, red *redactor, headers []string, cut *transferLog, warn func(string)) (*http.Client, error) {
	lookup := func(k string) (string, bool) { return lookupEnv(env, k) }
	if err := checkUnsupported(hc, lookup); err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	var err error
	if tr.TLSClientConfig, err = newTLSConfig(hc, lookup, warn); err != nil {
		return nil, err
	}
	resolve, err := resolveSetting(hc)
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second} // http.DefaultTransport's
	tr.DialContext = resolve.dialer(dialer.DialContext)
	proxy, err := proxyFunc(hc, scheme, env.Getenv, red)
	if err != nil {
		return nil, err
	}
	tr.Proxy = guardProxy(proxy, hc, lookup, tr.TLSClientConfig.VerifyConnection != nil, resolve, warn)
	httpVersion(hc, tr, warn)
	var rt http.RoundTripper = curlErrors{tr, cut}
	limit, secs, err := lowSpeedSettings(hc, lookup)
	if err != nil {
		return nil, err
	}
	if limit > 0 {
		rt = &lowSpeed{next: rt, cut: cut, limit: limit, period: time.Duration(secs) * time.Second, tick: lowSpeedTick}
	}
	if ua, ok := agentSetting(hc, lookup); ok {
		rt = userAgent{next: rt, ua: ua}
	}
	follow := "initial"
	if e, ok := hc.get("followRedirects"); ok && e.Value != "initial" {
		v, ok := true, true
		if !e.NoValue {
			v, ok = repo.ParseBool(e.Value)
		}
		if !ok {
			return nil, fmt.Errorf("bad boolean config value '%s' for '%s'", e.Value, e.Key)
		}
		follow = map[bool]string{true: "true", false: "false"}[v]
	}
	rp := &redirectPolicy{follow: follow, headers: headers}
	return &http.Client{Transport: rt, CheckRedirect: rp.check}, nil
}

// redirectPolicy is http.followRedirects, and what a redirect to another
// origin must leave behind.
type redirectPolicy struct {
	follow  string // "initial", "true" or "false"
	headers []string
}

// check decides on one redirect. go-git asks for it after its own checks;
// its stripping lets credentials follow an upgrade from http to https on
// the same host, which curl (and so git) does not.
func (p *redirectPolicy) check(req *http.Request, via []*http.Request) error {
	first := via[0]
	initial := first.Method == http.MethodGet && strings.HasSuffix(first.URL.Path, "/info/refs")
	if p.follow == "false" || p.follow == "initial" && !initial {
		code := 0
		if req.Response != nil {
			code = req.Response.StatusCode
		}
		return &redirectError{code: code, initial: initial}
	}
	left := !sameOrigin(first.URL, req.URL)
	for _, prev := range via[1:] {
		left = left || !sameOrigin(first.URL, prev.URL)
	}
	if left {
		// Once the chain has left the origin, nothing of the user's follows.
		req.Header.Del("Authorization")
		req.Header.Del("Cookie")
		for _, h := range p.headers {
			req.Header.Del(h)
		}
		req.URL.User = nil
	}
	return nil
}

// redirectError is a redirect http.followRedirects does not follow.
type redirectError struct {
	code    int
	initial bool // on the first request, for the refs
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("The requested URL returned error: %d", e.code)
}

// asRedirect finds a redirectError in err, also inside go-git's
// UnexpectedError, which does not unwrap.
func asRedirect(err error) (*redirectError, bool) {
	var re *redirectError
	if errors.As(err, &re) {
		return re, true
	}
	var ue *plumbing.UnexpectedError
	if errors.As(err, &ue) && errors.As(ue.Err, &re) {
		return re, true
	}
	return nil, false
}

// asStatus finds go-git's error for an answer that was neither a success
// nor a 401, 403 or 404 (which it turns into its own errors), also inside
// its UnexpectedError, which does not unwrap.
func asStatus(err error) (*githttp.Err, bool) {
	var he *githttp.Err
	if errors.As(err, &he) {
		return he, true
	}
	var ue *plumbing.UnexpectedError
	if errors.As(err, &ue) && errors.As(ue.Err, &he) {
		return he, true
	}
	return nil, false
}

// sameOrigin reports whether credentials given for a may go to b: the same
// scheme, host and port, as curl decides.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && urlPort(a) == urlPort(b)
}

// urlPort is the port a URL connects to.
func urlPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return strings.TrimLeft(p, "0")
	}
	return defaultPort(strings.ToLower(u.Scheme))
}
