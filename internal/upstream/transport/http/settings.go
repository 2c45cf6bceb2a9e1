package http

import (
	"fmt"
	nethttp "net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// Every http.* setting of git 2.39 (git help config) is decided here or
// beside the code that honours it. Honoured: proxy, proxyAuthMethod (basic
// and anyauth), extraHeader, followRedirects, sslVerify, sslCAInfo,
// sslCAPath, sslCert, sslKey, sslVersion (as a floor), pinnedPubkey,
// curloptResolve, lowSpeedLimit, lowSpeedTime, version, userAgent, and the
// variables that override them. Refused (checkUnsupported): what Go's
// crypto/tls and net/http cannot do as curl does. Accepted and ignored,
// because they change nothing the helper does:
//   - maxRequests, minSessions (GIT_HTTP_MAX_REQUESTS): curl's handles and
//     the parallel requests of the dumb protocol; the helper sends one
//     request at a time on net/http's connection pool.
//   - postBuffer: the helper sends every POST from a buffer with its
//     Content-Length, never chunked, which is what a larger buffer asks
//     for (and a redirect of a POST needs).
//   - sslTry, noEPSV (GIT_CURL_FTP_NO_EPSV): FTP only.
//   - delegation: GSSAPI credential delegation; the helper never speaks
//     Negotiate, so nothing is ever delegated.
//   - cookieFile is read (cookies.go); saveCookies, which makes curl write
//     the session's cookies back to it, is not honoured: the file is only
//     read.
//   - schannelCheckRevoke, schannelUseSSLCAInfo: only with sslBackend
//     schannel, which is refused; any other sslBackend names a library
//     curl could use for what Go's crypto/tls does here.
//   - GIT_CURL_VERBOSE, GIT_TRACE_CURL…: tracing only.

// checkUnsupported refuses the settings for the URL that the helper
// cannot honour as git does: running without one of them would be a
// transfer the user did not ask for (cookies not sent, a cipher list not
// enforced, a proxy certificate not presented).
func checkUnsupported(hc config, env lookupFunc) error {
	// set is the value of the setting or of the variable overriding it,
	// and the name of the one that gave it.
	set := func(key, variable string) (string, string) {
		if v, ok := env(variable); ok {
			return v, variable
		}
		e, _ := hc.get(key)
		return e.Value, "http." + key
	}
	if v, name := set("sslCipherList", "GIT_SSL_CIPHER_LIST"); v != "" {
		return &refusal{name, "Go's TLS cannot be held to an OpenSSL cipher list"}
	}
	const proxyTLS = "net/http gives an https proxy the server's TLS settings, not its own"
	for _, k := range [][2]string{{"proxySSLCert", "GIT_PROXY_SSL_CERT"}, {"proxySSLKey", "GIT_PROXY_SSL_KEY"}, {"proxySSLCAInfo", "GIT_PROXY_SSL_CAINFO"}} {
		if v, name := set(k[0], k[1]); v != "" {
			return &refusal{name, proxyTLS}
		}
	}
	protected, err := hc.bool("proxySSLCertPasswordProtected", false)
	if err != nil {
		return err
	}
	if _, ok := env("GIT_PROXY_SSL_CERT_PASSWORD_PROTECTED"); ok {
		return &refusal{"GIT_PROXY_SSL_CERT_PASSWORD_PROTECTED", proxyTLS}
	}
	if protected {
		return &refusal{"http.proxySSLCertPasswordProtected", proxyTLS}
	}
	if e, ok := hc.get("sslBackend"); ok && strings.EqualFold(e.Value, "schannel") {
		return &refusal{"http.sslBackend", "schannel's Windows certificate store and revocation checks are not Go's"}
	}
	return nil
}

// guardProxy wraps the transport's proxy choice, refusing per request a
// proxy with which a setting could not be honoured: a proxy user whose
// http.proxyAuthMethod (GIT_HTTP_PROXY_AUTHMETHOD) is not Basic, which is
// all net/http speaks; an https proxy with http.pinnedPubkey, whose TLS
// would be held to the server's pin; a socks5 proxy (not socks5h, which
// resolves names itself in curl too) for a name http.curloptResolve maps,
// since Go's SOCKS client hands the proxy the name, not the address.
func guardProxy(proxy func(*nethttp.Request) (*url.URL, error), hc config, env lookupFunc, pinned bool, resolve resolveTable, warn func(string)) func(*nethttp.Request) (*url.URL, error) {
	method, ok := env("GIT_HTTP_PROXY_AUTHMETHOD")
	name := "GIT_HTTP_PROXY_AUTHMETHOD"
	if e, set := hc.get("proxyAuthMethod"); !ok && set {
		method, name = e.Value, "http.proxyAuthMethod"
	}
	switch method {
	case "", "anyauth", "basic", "digest", "negotiate", "ntlm":
	default:
		warn(fmt.Sprintf("unsupported proxy authentication method %s: using anyauth", method))
		method = "anyauth"
	}
	if proxy == nil {
		return nil
	}
	return func(r *nethttp.Request) (*url.URL, error) {
		pu, err := proxy(r)
		if pu == nil || err != nil {
			return pu, err
		}
		switch {
		case pu.User != nil && method != "" && method != "anyauth" && method != "basic":
			return nil, &refusal{name, "net/http authenticates to a proxy with Basic only, not " + method}
		case pinned && pu.Scheme == "https":
			return nil, &refusal{"http.pinnedPubkey", "through an https proxy, whose TLS net/http would hold to the pin"}
		case pu.Scheme == "socks5":
			port := r.URL.Port()
			if port == "" {
				port = transport.DefaultPort(r.URL.Scheme)
			}
			if _, ok := resolve.lookup(r.URL.Hostname(), port); ok {
				return nil, &refusal{"http.curloptResolve", "through a socks5 proxy, to which Go's SOCKS client sends the name"}
			}
		}
		return pu, nil
	}
}

// userAgent sends every request with the User-Agent of http.userAgent
// (GIT_HTTP_USER_AGENT) instead of the helper's own; an empty one sends none, as
// with curl.
type userAgent struct {
	next nethttp.RoundTripper
	ua   string
}

func (u userAgent) RoundTrip(req *nethttp.Request) (*nethttp.Response, error) {
	r := req.Clone(req.Context())
	r.Header["User-Agent"] = []string{u.ua}
	return u.next.RoundTrip(r)
}

// agentSetting is http.userAgent, or GIT_HTTP_USER_AGENT, when set.
func agentSetting(hc config, env lookupFunc) (string, bool) {
	if v, ok := env("GIT_HTTP_USER_AGENT"); ok {
		return v, true
	}
	e, ok := hc.get("userAgent")
	return e.Value, ok
}

// httpVersion applies http.version: "HTTP/1.1" keeps to HTTP/1.1;
// "HTTP/2" asks for h2 over TLS, as net/http does anyway (without curl's
// cleartext upgrade, after which git speaks HTTP/1.1 to most servers).
func httpVersion(hc config, tr *nethttp.Transport, warn func(string)) {
	e, ok := hc.get("version")
	switch {
	case !ok || e.Value == "HTTP/2":
	case e.Value == "HTTP/1.1":
		tr.Protocols = new(nethttp.Protocols)
		tr.Protocols.SetHTTP1(true)
	default:
		warn(fmt.Sprintf("unknown value given to http.version: '%s'", e.Value))
	}
}

// lowSpeedSettings returns http.lowSpeedLimit (bytes a second) and
// http.lowSpeedTime (seconds), GIT_HTTP_LOW_SPEED_LIMIT and _TIME
// overriding them (read as strtol reads them); the watch is on only when
// both are positive, as in git.
func lowSpeedSettings(hc config, env lookupFunc) (limit, secs int64, err error) {
	read := func(key, variable string) (int64, error) {
		if v, ok := env(variable); ok {
			return strtol(v), nil
		}
		e, ok := hc.get(key)
		if !ok {
			return 0, nil
		}
		n, err := repo.ParseInt(e.Value)
		if err != nil || n != int64(int32(n)) {
			return 0, fmt.Errorf("bad numeric config value '%s' for '%s': invalid unit", e.Value, e.Key)
		}
		return n, nil
	}
	if limit, err = read("lowSpeedLimit", "GIT_HTTP_LOW_SPEED_LIMIT"); err != nil {
		return 0, 0, err
	}
	if secs, err = read("lowSpeedTime", "GIT_HTTP_LOW_SPEED_TIME"); err != nil || limit <= 0 || secs <= 0 {
		return 0, 0, err
	}
	return limit, secs, nil
}

// strtol reads a number as C's strtol(s, NULL, 10): leading space, a
// sign, the digits that follow; 0 without any.
func strtol(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	end := 0
	if end < len(s) && (s[end] == '-' || s[end] == '+') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.ParseInt(s[:end], 10, 64) // out of range: the bound, as strtol
	return n
}

// lowSpeedTick is how often a request's speed is measured.
const lowSpeedTick = 250 * time.Millisecond
