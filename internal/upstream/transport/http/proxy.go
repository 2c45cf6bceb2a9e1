package http

import (
	"fmt"
	"net"
	nethttp "net/http"
	"net/url"
	"strings"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// proxyFunc chooses the proxy as git does: http.proxy for the URL (set and
// empty: no proxy), else the environment curl reads — https_proxy or
// HTTPS_PROXY for an https remote, http_proxy (lower case only) for http,
// then all_proxy or ALL_PROXY, the lower-case name winning. NO_PROXY or
// no_proxy exempts hosts. A nil function means no proxy.
func proxyFunc(hc config, scheme transport.Scheme, getenv func(string) string, red *transport.Redactor) (func(*nethttp.Request) (*url.URL, error), error) {
	raw, set := "", false
	if e, ok := hc.get("proxy"); ok {
		raw, set = e.Value, true
	}
	pick := func(names ...string) {
		for _, n := range names {
			if v := getenv(n); v != "" {
				raw, set = v, true
			}
		}
	}
	if !set && scheme == transport.HTTPS {
		pick("HTTPS_PROXY", "https_proxy")
	} else if !set {
		pick("http_proxy")
	}
	if !set {
		pick("ALL_PROXY", "all_proxy")
	}
	if raw == "" {
		return nil, nil
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw // curl's default
	}
	pu, err := url.Parse(raw)
	if err != nil || pu.Host == "" {
		return nil, fmt.Errorf("invalid proxy URL '%s'", transport.Anonymize(raw))
	}
	switch pu.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("unsupported proxy scheme '%s' in '%s'", pu.Scheme, transport.Anonymize(raw))
	}
	if p, ok := pu.User.Password(); ok {
		red.Add(p)
	}
	noProxy := getenv("NO_PROXY")
	if v := getenv("no_proxy"); v != "" {
		noProxy = v
	}
	return func(r *nethttp.Request) (*url.URL, error) {
		if bypassProxy(noProxy, r.URL.Hostname()) {
			return nil, nil
		}
		return pu, nil
	}, nil
}

// bypassProxy reports whether the no_proxy list (curl's rules: "*" for
// every host, else names that match the host or a domain of it, IP
// addresses and CIDR ranges) exempts host.
func bypassProxy(list, host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	ip := net.ParseIP(host)
	for _, e := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		e = strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(e), "."), ".")
		switch {
		case e == "*":
			return true
		case ip != nil && strings.Contains(e, "/"):
			if _, n, err := net.ParseCIDR(e); err == nil && n.Contains(ip) {
				return true
			}
		case ip != nil:
			if eip := net.ParseIP(strings.Trim(e, "[]")); eip != nil && eip.Equal(ip) {
				return true
			}
		case host == e || strings.HasSuffix(host, "."+e):
			return true
		}
	}
	return false
}
