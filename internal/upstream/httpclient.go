package upstream

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
)

// newHTTPClient is the HTTP client for one remote, with git's settings for
// its URL: TLS (newTLSConfig), the proxy, http.curloptResolve,
// http.lowSpeedLimit and http.lowSpeedTime, http.version, http.userAgent
// http.followRedirects and http.cookieFile; the settings it cannot honour refuse the run
// (checkUnsupported). headers names the extra headers a redirect to
// another host must drop; cut records a request failed as curl would.
func newHTTPClient(hc httpConfig, scheme string, env proc.Env, red *Redactor, headers []string, cut *transferLog, warn func(string)) (*http.Client, error) {
	lookup := func(k string) (string, bool) { return env.Lookup(k) }
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
	jar, err := cookieJar(hc, lookup, time.Now())
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: rt, CheckRedirect: rp.check, Jar: jar}, nil
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
func (p *redirectPolicy) check(req *http.Request, via []*http.Request) error {
	req.Header.Del("Referer")
	first := via[0]
	if prev := via[len(via)-1]; strings.EqualFold(prev.URL.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
		return fmt.Errorf("redirect from %s to %s: a redirect may not leave https", Anonymize(prev.URL.String()), Anonymize(req.URL.String()))
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if port := req.URL.Port(); port != "" && !validPort(port) {
		return fmt.Errorf("redirect to %s: URL using bad/illegal format or missing URL", Anonymize(req.URL.String()))
	}
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

// asRedirect finds a redirectError in err.
func asRedirect(err error) (*redirectError, bool) {
	var re *redirectError
	return re, errors.As(err, &re)
}

// statusError is an answer that was neither a success, a redirect
// followed, nor a 401, 403 or 404 (errAuthRequired, errForbidden,
// errNotFound).
type statusError struct {
	code   int
	method string // of the request
}

func (e *statusError) Error() string {
	return fmt.Sprintf("The requested URL returned error: %d", e.code)
}

// asStatus finds a statusError in err.
func asStatus(err error) (*statusError, bool) {
	var he *statusError
	return he, errors.As(err, &he)
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
