package transport

import (
	"fmt"
	"strconv"
	"strings"
)

// checkAuthority refuses, before anything connects, an authority (the
// "user@host:port" of a URL) that git would not connect to as the helper
// would read it:
//   - a port that is not a number from 1 to 65535: git's connect.c takes
//     anything else for part of the host name, which no lookup finds, and
//     curl refuses the URL; Go would dial the scheme's default port for
//     port 0, and fail late, in its own words, for the rest;
//   - an '@' of the user information that is not escaped: curl refuses
//     the URL, and git's credential code splits it at the first '@' where
//     Go's URL parser splits at the last, so that the URL's user and
//     password would go to another host than the one git names.
//
// Each refusal is in the words git (or curl, or ssh under git) prints.
// An address without a scheme is checked where it is ssh's
// "[user@]host:path": its host must hold no '@' either.
func checkAuthority(addr string) error {
	if !hasScheme.MatchString(addr) {
		if _, host, _, ok := scpParts(addr); ok && strings.Contains(host, "@") {
			return fmt.Errorf("strange hostname '%s' blocked", host)
		}
		return nil
	}
	name, auth, _, _ := splitURL(addr)
	scheme, known := schemeOf(name)
	if !known || scheme == File {
		return nil // an unknown scheme is refused as such
	}
	_, hostPort, hasUser := strings.Cut(auth, "@")
	if !hasUser {
		hostPort = auth
	}
	host, port := splitHostPort(hostPort)
	if hasUser && strings.Contains(hostPort, "@") {
		return badAuthority(scheme, Anonymize(addr), host, port, true)
	}
	if port != "" && !ValidPort(port) {
		return badAuthority(scheme, Anonymize(addr), host, port, false)
	}
	return nil
}

// splitHostPort splits "host:port" at the last ':' that is not inside an
// IPv6 address's brackets; port is "" where there is none.
func splitHostPort(s string) (host, port string) {
	start := 0
	if strings.HasPrefix(s, "[") {
		if end := strings.IndexByte(s, ']'); end >= 0 {
			start = end
		}
	}
	if i := strings.LastIndexByte(s[start:], ':'); i >= 0 {
		return s[:start+i], s[start+i+1:]
	}
	return s, ""
}

// ValidPort reports whether p is a port git and curl connect to: decimal
// digits only, from 1 to 65535.
func ValidPort(p string) bool {
	if p == "" || strings.Trim(p, "0123456789") != "" {
		return false
	}
	// Leading zeros are no digits of the number (curl's parse, and
	// git's): 042309 is port 42309.
	if p = strings.TrimLeft(p, "0"); len(p) > 5 || p == "" {
		return false
	}
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// badAuthority is the refusal of an authority of scheme with a bad port,
// or, with at, an unescaped '@' in its user information, in the words a
// user of git sees for it: curl's through git over http(s), git's
// connect.c over git:// (which looks the whole authority up as a host
// name), ssh's under git over ssh. safe is the address without its user
// information; host is what follows the first '@'.
func badAuthority(scheme Scheme, safe, host, port string, at bool) error {
	switch scheme {
	case HTTP, HTTPS:
		return fmt.Errorf("unable to access '%s': URL using bad/illegal format or missing URL", safe)
	case Git:
		if at && ValidPort(port) {
			return fmt.Errorf("unable to look up %s (port %s) (Name or service not known)", host, port)
		}
		if port != "" {
			host += ":" + port
		}
		return fmt.Errorf("unable to look up %s (port %d) (Name or service not known)", host, DaemonPort)
	}
	if at {
		return fmt.Errorf("strange hostname '%s' blocked", host)
	}
	if port == "0" {
		return fmt.Errorf("ssh: Bad port '%s'", port)
	}
	return fmt.Errorf("ssh: Could not resolve hostname %s:%s: Name or service not known", host, port)
}
