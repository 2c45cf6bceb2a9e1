package urlmatch

import "strings"

// Score is how specifically a config URL matched: the length of its
// host, of the path matched (counting the final '/'), and whether it named
// the user. The zero value is a plain http.<key>.
type Score struct {
	host, path int
	user       bool
}

// Less reports whether m is less specific than o (urlmatch.c cmp_matches).
func (m Score) Less(o Score) bool {
	switch {
	case m.host != o.host:
		return m.host < o.host
	case m.path != o.path:
		return m.path < o.path
	}
	return !m.user && o.user
}

// Match matches the config URL p against the target u.
func Match(u, p URL) (Score, bool) {
	var m Score
	if u.Scheme != p.Scheme {
		return m, false
	}
	if p.HasUser {
		if !u.HasUser || u.User != p.User {
			return m, false
		}
		m.user = true
	}
	if !matchHost(u.Host, p.Host) || u.Port != p.Port {
		return m, false
	}
	m.host = len(p.Host)
	m.path = matchPath(u.Path, p.Path)
	return m, m.path > 0
}

// matchHost compares host names label by label; a label "*" in the
// pattern matches any one label.
func matchHost(host, pattern string) bool {
	hl, pl := strings.Split(host, "."), strings.Split(pattern, ".")
	if len(hl) != len(pl) {
		return false
	}
	for i := range hl {
		if pl[i] != "*" && pl[i] != hl[i] {
			return false
		}
	}
	return true
}

// matchPath returns the length of the match of prefix against path (both
// with an implied final '/'), counting that '/', or 0 when prefix is not
// path or a prefix of it ending at a '/'.
func matchPath(path, prefix string) int {
	if prefix == "" || prefix == "/" {
		if path == "" || path[0] == '/' {
			return 1
		}
		return 0
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if !strings.HasPrefix(path, prefix) {
		return 0
	}
	if len(path) == len(prefix) || path[len(prefix)] == '/' {
		return len(prefix) + 1
	}
	return 0
}
