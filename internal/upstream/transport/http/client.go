package http

import (
	"errors"
	"fmt"
	"net"
	nethttp "net/http"
	"net/url"
	"strings"
	"time"

	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// newHTTPClient is the HTTP client for one remote, with git's settings for
// its URL: TLS (newTLSConfig), the proxy, http.curloptResolve,
// http.lowSpeedLimit and http.lowSpeedTime, http.version, http.userAgent
// http.followRedirects and http.cookieFile; the settings it cannot honour refuse the run
// (checkUnsupported). headers names the extra headers a redirect to
// another host must drop; cut records a request failed as curl would.
func newClient(hc config, scheme transport.Scheme, env proc.Env, red *transport.Redactor, headers []string, cut *Log, warn func(string)) (*nethttp.Client, error) {
	lookup := func(k string) (string, bool) { return env.Lookup(k) }
	if err := checkUnsupported(hc, lookup); err != nil {
		return nil, err
	}
	tr := nethttp.DefaultTransport.(*nethttp.Transport).Clone()
	var err error
	if tr.TLSClientConfig, err = newTLSConfig(hc, lookup, warn); err != nil {
		return nil, err
	}
	resolve, err := resolveSetting(hc)
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second} // nethttp.DefaultTransport's
	tr.DialContext = resolve.dialer(dialer.DialContext)
	proxy, err := proxyFunc(hc, scheme, env.Getenv, red)
	if err != nil {
		return nil, err
	}
	tr.Proxy = guardProxy(proxy, hc, lookup, tr.TLSClientConfig.VerifyConnection != nil, resolve, warn)
	httpVersion(hc, tr, warn)
	var rt nethttp.RoundTripper = curlErrors{tr, cut}
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
	jar, err := cookieJar(hc, lookup, time.Now())
	if err != nil {
		return nil, err
	}
	return &nethttp.Client{Transport: rt, CheckRedirect: rp.check, Jar: jar}, nil
}

// redirectPolicy is http.followRedirects, and what a redirect to another
// origin must leave behind.
type redirectPolicy struct {
	follow  string // "initial", "true" or "false"
	headers []string
}

// check decides on one redirect, and strips what belongs to the origin a
// hop leaves: an upgrade from http to https on the same host is another
// origin too, for curl and so for git. A redirect from https to http is
// refused, as go-git's client refused it, and so is a chain of more than
// ten. No hop carries a Referer: Go's client names the URL a hop left
// there, query (a token) included, where curl, and so git, sends none.
func (p *redirectPolicy) check(req *nethttp.Request, via []*nethttp.Request) error {
	req.Header.Del("Referer")
	first := via[0]
	if prev := via[len(via)-1]; isHTTPS(prev.URL) && !isHTTPS(req.URL) {
		return fmt.Errorf("redirect from %s to %s: a redirect may not leave https", transport.Anonymize(prev.URL.String()), transport.Anonymize(req.URL.String()))
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if port := req.URL.Port(); port != "" && !transport.ValidPort(port) {
		return fmt.Errorf("redirect to %s: URL using bad/illegal format or missing URL", transport.Anonymize(req.URL.String()))
	}
	initial := first.Method == nethttp.MethodGet && strings.HasSuffix(first.URL.Path, "/info/refs")
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

// Describe is git's line: curl did not follow, the redirect is an error
// status.
func (e *redirectError) Describe(url string) string {
	if e.initial {
		return fmt.Sprintf("unable to access '%s': %s", url, e)
	}
	return fmt.Sprintf("RPC failed; HTTP %d: %s", e.code, e)
}

// statusError is an answer that was neither a success, a redirect
// followed, nor a 401, 403 or 404 (transport.ErrAuthRequired,
// ErrForbidden, ErrNotFound).
type statusError struct {
	code   int
	method string // of the request
}

func (e *statusError) Error() string {
	return fmt.Sprintf("The requested URL returned error: %d", e.code)
}

// Describe is curl's words for the status, as git prints them.
func (e *statusError) Describe(url string) string {
	if e.method == nethttp.MethodPost {
		return fmt.Sprintf("RPC failed; HTTP %d: %s", e.code, e)
	}
	return fmt.Sprintf("unable to access '%s': %s", url, e)
}

// isHTTPS reports whether u is an https URL.
func isHTTPS(u *url.URL) bool { return strings.EqualFold(u.Scheme, string(transport.HTTPS)) }

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
	return transport.DefaultPort(u.Scheme)
}
