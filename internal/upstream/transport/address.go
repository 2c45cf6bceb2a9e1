package transport

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Address is where an upstream is: the address git gave the helper,
// parsed once (ParseAddress) into what every transport, message and
// request uses.
type Address struct {
	Scheme         Scheme
	User, Password string
	Host           string // an IPv6 address in brackets
	Port           int    // 0: the scheme's default
	Path           string // with the query and fragment of a URL
	// Safe is the address as git gave it without its user information,
	// as messages name it (Anonymize).
	Safe string
	// DaemonHost and DaemonPath are what a git:// request names, as git's
	// connect.c reads them from the address (stream.CheckDaemon).
	DaemonHost, DaemonPath string
}

// ParseAddress parses the address git passes as the helper's second
// argument (parseEndpoint) and refuses what git refuses of any address
// before anything runs or connects (checkAuthority, checkEndpoint); what
// a scheme's transport would take for an option is that transport's own
// check (package stream).
func ParseAddress(addr string) (*Address, error) {
	a, err := parseEndpoint(addr)
	if err != nil {
		return nil, err
	}
	if err := checkEndpoint(addr); err != nil {
		return nil, err
	}
	a.Safe = Anonymize(addr)
	return a, nil
}

// parseEndpoint turns the address git passes as the helper's second argument
// into an Address. git strips "durable::" before it runs the helper,
// so the rest is any URL git accepts; "durable://host/path", which git passes
// whole, means https://host/path.
func parseEndpoint(addr string) (*Address, error) {
	if rest, ok := strings.CutPrefix(addr, durable); ok {
		addr = string(HTTPS) + "://" + rest
	}
	if addr == "" {
		return nil, errors.New("no URL to fetch from or push to")
	}
	if name, _, ok := strings.Cut(addr, "://"); ok {
		if s, _ := schemeOf(name); s.Web() {
			// Before net/url decodes it: git's own check, on git's parts.
			if err := CheckCredentialURL(addr); err != nil {
				return nil, err
			}
		}
	}
	if err := checkAuthority(addr); err != nil {
		return nil, err
	}
	ep, err := splitAddress(addr)
	if err != nil {
		return nil, fmt.Errorf("invalid URL '%s'", Anonymize(addr))
	}
	switch _, ok := schemeOf(string(ep.Scheme)); {
	case !ok:
		return nil, fmt.Errorf("unsupported protocol '%s' in '%s'", ep.Scheme, Anonymize(addr))
	case ep.Scheme.Web() && ep.Host == "":
		// No host: what git credential would be asked about is not where
		// the requests go.
		return nil, fmt.Errorf("invalid URL '%s'", Anonymize(addr))
	}
	return ep, nil
}

// hasScheme matches an address that starts with "<scheme>://".
var hasScheme = regexp.MustCompile(`^[^:]+://`)

// scpLike matches git's "[user@]host:path".
var scpLike = regexp.MustCompile(`^(?:([^@]+)@)?([^:\s]+):([^\\].*)$`)

// splitAddress splits an address the three ways git reads one: a URL with a
// scheme; "[user@]host:path", which is ssh unless a '/' comes before the
// first ':' (git's url_is_local_not_ssh); else a local path, made
// absolute.
func splitAddress(addr string) (*Address, error) {
	if !hasScheme.MatchString(addr) {
		if user, host, path, ok := scpParts(addr); ok {
			return &Address{Scheme: SSH, User: user, Host: host, Port: SSH.Port(), Path: path}, nil
		}
		path, err := filepath.Abs(addr)
		if err != nil {
			return nil, err
		}
		return &Address{Scheme: File, Path: path}, nil
	}
	u, err := url.Parse(addr)
	if err != nil {
		return nil, err
	}
	if !u.IsAbs() {
		return nil, fmt.Errorf("invalid endpoint: %s", addr)
	}
	ep := &Address{Scheme: Scheme(u.Scheme), Host: u.Hostname(), Path: u.Path}
	if u.User != nil {
		ep.User = u.User.Username()
		ep.Password, _ = u.User.Password()
	}
	if strings.Contains(ep.Host, ":") {
		ep.Host = "[" + ep.Host + "]" // IPv6
	}
	if p := u.Port(); p != "" {
		ep.Port, _ = strconv.Atoi(p)
	}
	if u.RawQuery != "" {
		ep.Path += "?" + u.RawQuery
	}
	if u.Fragment != "" {
		ep.Path += "#" + u.Fragment
	}
	return ep, nil
}

// scpParts splits git's "[user@]host:path", ssh's short form: ok is false
// for an address that is not one (a '/' before the first ':' makes it a
// local path, git's url_is_local_not_ssh).
func scpParts(addr string) (user, host, path string, ok bool) {
	m := scpLike.FindStringSubmatch(addr)
	if m == nil {
		return "", "", "", false
	}
	if before, _, _ := strings.Cut(addr, ":"); strings.Contains(before, "/") {
		return "", "", "", false
	}
	return m[1], m[2], m[3], true
}

// Anonymize removes the user information from an address, as git's
// transport_anonymize_url does before it prints one: "https://u:p@h/r" gives
// "https://h/r", "u@h:r" gives "h:r"; local paths are left alone.
func Anonymize(addr string) string {
	if rest, ok := strings.CutPrefix(addr, durable); ok {
		web := string(HTTPS) + "://"
		return durable + Anonymize(web + rest)[len(web):]
	}
	if scheme, auth, tail, ok := splitURL(addr); ok {
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			return scheme + "://" + auth[at+1:] + tail
		}
		return addr
	}
	colon := strings.IndexByte(addr, ':')
	slash := strings.IndexByte(addr, '/')
	at := strings.IndexByte(addr, '@')
	if colon > 0 && (slash < 0 || colon < slash) && at >= 0 && at < colon {
		return addr[at+1:] // scp-like user@host:path
	}
	return addr
}

// splitURL splits "scheme://authority…" at its "://" and where the
// authority ends, at the first '/', '?' or '#' after it; ok is false
// without a "://".
func splitURL(addr string) (scheme, authority, tail string, ok bool) {
	scheme, rest, ok := strings.Cut(addr, "://")
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	return scheme, rest[:end], rest[end:], ok
}
