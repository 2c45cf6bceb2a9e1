package http

import (
	"crypto/tls"
	"errors"
	nethttp "net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/repo"
)

// envOf is a lookupFunc over a fixed environment.
func envOf(kv ...string) lookupFunc {
	return func(k string) (string, bool) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1], true
			}
		}
		return "", false
	}
}

// TestCheckUnsupported refuses each setting the helper cannot honour, set
// for the URL or through its variable, and lets through the values that
// ask for nothing the helper does not do.
func TestCheckUnsupported(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		env        []string
		refused    string // the setting named, "" for none
	}{
		{"http.cookiefile", "/tmp/cookies", nil, ""}, // read (cookies.go)
		{"http.cookiefile", "", nil, ""},             // curl's cookie engine without a file
		{"http.https://other.cookiefile", "/tmp/cookies", nil, ""},
		{"http.savecookies", "true", nil, ""},
		{"http.sslcipherlist", "HIGH", nil, "http.sslCipherList"},
		{"http.sslcipherlist", "", nil, ""},
		{"http.sslcipherlist", "HIGH", []string{"GIT_SSL_CIPHER_LIST", ""}, ""},
		{"", "", []string{"GIT_SSL_CIPHER_LIST", "HIGH"}, "GIT_SSL_CIPHER_LIST"},
		{"http.proxysslcert", "/c.pem", nil, "http.proxySSLCert"},
		{"", "", []string{"GIT_PROXY_SSL_KEY", "/k.pem"}, "GIT_PROXY_SSL_KEY"},
		{"http.proxysslcainfo", "/ca.pem", nil, "http.proxySSLCAInfo"},
		{"http.proxysslcertpasswordprotected", "true", nil, "http.proxySSLCertPasswordProtected"},
		{"http.proxysslcertpasswordprotected", "false", nil, ""},
		{"", "", []string{"GIT_PROXY_SSL_CERT_PASSWORD_PROTECTED", ""}, "GIT_PROXY_SSL_CERT_PASSWORD_PROTECTED"},
		{"http.emptyauth", "true", nil, ""}, // Negotiate, never spoken; Basic as without it
		{"http.emptyauth", "auto", nil, ""},
		{"http.emptyauth", "false", nil, ""},
		{"http.sslbackend", "schannel", nil, "http.sslBackend"},
		{"http.sslbackend", "openssl", nil, ""},
		{"http.sslbackend", "gnutls", nil, ""},
		{"http.delegation", "always", nil, ""},
		{"http.postbuffer", "524288000", nil, ""},
		{"http.maxrequests", "1", nil, ""},
		{"http.minsessions", "1", nil, ""},
		{"http.noepsv", "true", nil, ""},
		{"http.ssltry", "true", nil, ""},
		{"http.schannelcheckrevoke", "false", nil, ""},
	} {
		var cfg repo.Config
		if tc.key != "" {
			cfg = repo.Config{{Key: tc.key, Value: tc.value}}
		}
		err := checkUnsupported(testConfig(cfg, "https://h/r"), envOf(tc.env...))
		var r *refusal
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%s=%q %v: %v", tc.key, tc.value, tc.env, err)
		case tc.refused != "" && (!errors.As(err, &r) || r.key != tc.refused):
			t.Errorf("%s=%q %v: %v, want %s refused", tc.key, tc.value, tc.env, err, tc.refused)
		case r != nil && !strings.HasPrefix(r.Error(), "unsupported setting "+tc.refused+": "):
			t.Errorf("message %q", r.Error())
		}
	}
}

// TestGuardProxy refuses a proxy with which a setting cannot hold, per
// request.
func TestGuardProxy(t *testing.T) {
	resolve, _ := newResolveTable([]string{"h:443:127.0.0.1"})
	for _, tc := range []struct {
		proxy   string
		cfg     repo.Config
		env     []string
		pinned  bool
		target  string
		refused string
	}{
		{"http://u:p@proxy:3128", repo.Config{{Key: "http.proxyauthmethod", Value: "ntlm"}}, nil, false, "https://h/r", "http.proxyAuthMethod"},
		{"http://proxy:3128", repo.Config{{Key: "http.proxyauthmethod", Value: "ntlm"}}, nil, false, "https://h/r", ""},
		{"http://u:p@proxy:3128", repo.Config{{Key: "http.proxyauthmethod", Value: "basic"}}, nil, false, "https://h/r", ""},
		{"http://u:p@proxy:3128", repo.Config{{Key: "http.proxyauthmethod", Value: "basic"}}, []string{"GIT_HTTP_PROXY_AUTHMETHOD", "digest"}, false, "https://h/r", "GIT_HTTP_PROXY_AUTHMETHOD"},
		{"https://proxy:3128", nil, nil, true, "https://h/r", "http.pinnedPubkey"},
		{"http://proxy:3128", nil, nil, true, "https://h/r", ""},
		{"socks5://proxy:1080", nil, nil, false, "https://h/r", "http.curloptResolve"},
		{"socks5://proxy:1080", nil, nil, false, "https://other/r", ""},
		{"socks5h://proxy:1080", nil, nil, false, "https://h/r", ""},
	} {
		pu, _ := url.Parse(tc.proxy)
		var warned []string
		f := guardProxy(func(*nethttp.Request) (*url.URL, error) { return pu, nil }, testConfig(tc.cfg, "https://h/r"),
			envOf(tc.env...), tc.pinned, resolve, func(s string) { warned = append(warned, s) })
		req, _ := nethttp.NewRequest(nethttp.MethodGet, tc.target, nil)
		got, err := f(req)
		var r *refusal
		switch {
		case tc.refused == "" && (err != nil || got != pu):
			t.Errorf("%+v: %v %v", tc, got, err)
		case tc.refused != "" && (!errors.As(err, &r) || r.key != tc.refused || got != nil):
			t.Errorf("%+v: %v %v", tc, got, err)
		case len(warned) > 0:
			t.Errorf("%+v: warned %v", tc, warned)
		}
	}
	var warned []string
	guardProxy(nil, testConfig(repo.Config{{Key: "http.proxyauthmethod", Value: "bogus"}}, "https://h/r"), envOf(), false, nil,
		func(s string) { warned = append(warned, s) })
	if len(warned) != 1 || warned[0] != "unsupported proxy authentication method bogus: using anyauth" {
		t.Errorf("warned %q", warned)
	}
}

// TestLowSpeedSettings reads the two settings, the variables (read as
// strtol reads) overriding them; the watch is on only when both are
// positive.
func TestLowSpeedSettings(t *testing.T) {
	for _, tc := range []struct {
		cfg         repo.Config
		env         []string
		limit, secs int64
		err         bool
	}{
		{nil, nil, 0, 0, false},
		{repo.Config{{Key: "http.lowspeedlimit", Value: "1k"}, {Key: "http.lowspeedtime", Value: "30"}}, nil, 1024, 30, false},
		{repo.Config{{Key: "http.lowspeedlimit", Value: "1000"}}, nil, 0, 0, false},
		{repo.Config{{Key: "http.https://h.lowspeedlimit", Value: "10"}, {Key: "http.lowspeedtime", Value: "2"}}, nil, 10, 2, false},
		{repo.Config{{Key: "http.https://other.lowspeedlimit", Value: "10"}, {Key: "http.lowspeedtime", Value: "2"}}, nil, 0, 0, false},
		{repo.Config{{Key: "http.lowspeedlimit", Value: "1000"}, {Key: "http.lowspeedtime", Value: "2"}}, []string{"GIT_HTTP_LOW_SPEED_TIME", "0"}, 0, 0, false},
		{nil, []string{"GIT_HTTP_LOW_SPEED_LIMIT", " 50abc", "GIT_HTTP_LOW_SPEED_TIME", "3"}, 50, 3, false},
		{nil, []string{"GIT_HTTP_LOW_SPEED_LIMIT", "x", "GIT_HTTP_LOW_SPEED_TIME", "3"}, 0, 0, false},
		{repo.Config{{Key: "http.lowspeedlimit", Value: "fast"}}, nil, 0, 0, true},
	} {
		limit, secs, err := lowSpeedSettings(testConfig(tc.cfg, "https://h/r"), envOf(tc.env...))
		if limit != tc.limit || secs != tc.secs || (err != nil) != tc.err {
			t.Errorf("%v %v: %d %d %v", tc.cfg, tc.env, limit, secs, err)
		}
	}
}

// TestTLSVersion takes http.sslVersion (GIT_SSL_VERSION, even empty,
// overriding it) as curl's floor.
func TestTLSVersion(t *testing.T) {
	for _, tc := range []struct {
		value string
		env   []string
		min   uint16
		warn  bool
	}{
		{"", nil, 0, false},
		{"tlsv1.3", nil, tls.VersionTLS13, false},
		{"tlsv1.2", nil, 0, false},
		{"tlsv1", nil, 0, false},
		{"sslv3", nil, 0, false},
		{"tlsv1.3", []string{"GIT_SSL_VERSION", ""}, 0, false},
		{"", []string{"GIT_SSL_VERSION", "tlsv1.3"}, tls.VersionTLS13, false},
		{"tls9", nil, 0, true},
	} {
		var cfg repo.Config
		if tc.value != "" {
			cfg = repo.Config{{Key: "http.sslversion", Value: tc.value}}
		}
		var warned []string
		c, err := newTLSConfig(testConfig(cfg, "https://h/r"), envOf(tc.env...), func(s string) { warned = append(warned, s) })
		if err != nil || c.MinVersion != tc.min || (len(warned) > 0) != tc.warn {
			t.Errorf("%q %v: min %x, warned %v, %v", tc.value, tc.env, c.MinVersion, warned, err)
		}
	}
}
