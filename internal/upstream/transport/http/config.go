package http

import (
	"fmt"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// config answers "the value of http.<key> for this URL" the way git's
// http.c reads its settings through urlmatch.c: an http.<url>.<key> entry
// applies when its URL matches (scheme exactly, host with "*" per label,
// port with the scheme's default, path as a prefix at a '/' boundary, user
// if the entry names one), and the most specific match wins over a plain
// http.<key>, host before path before user.
type config struct {
	cfg    repo.Config
	target urlForm
	ok     bool // the target is a URL git would match at all
}

// newConfig resolves http.* settings for the address (the remote's, as
// given, before any redirect).
func newConfig(cfg repo.Config, a *transport.Address) config {
	target, ok := formOf(a)
	return config{cfg: cfg, target: target, ok: ok}
}

// each calls fn with every entry of http.<key> git hands to http.c, in
// order: those that apply to the URL and are not less specific than one
// already seen. A single-valued key keeps the last; a list grows.
func (c config) each(key string, fn func(repo.Entry)) {
	name := "." + strings.ToLower(key)
	var best urlMatch
	seen := false
	for _, e := range c.cfg {
		if !strings.HasPrefix(e.Key, "http.") || !strings.HasSuffix(e.Key, name) || len(e.Key) < len("http")+len(name) {
			continue
		}
		var m urlMatch
		if sub := e.Key[len("http") : len(e.Key)-len(name)]; sub != "" {
			p, ok := parseForm(sub[1:])
			if !ok || !c.ok {
				continue
			}
			if m, ok = matchURL(c.target, p); !ok {
				continue
			}
		}
		if seen && m.less(best) {
			continue
		}
		best, seen = m, true
		fn(e)
	}
}

// get returns the value of http.<key> for the URL.
func (c config) get(key string) (repo.Entry, bool) {
	var last repo.Entry
	found := false
	c.each(key, func(e repo.Entry) { last, found = e, true })
	return last, found
}

// bool returns http.<key> for the URL as git's boolean, def when unset.
func (c config) bool(key string, def bool) (bool, error) {
	e, ok := c.get(key)
	switch {
	case !ok:
		return def, nil
	case e.NoValue:
		return true, nil
	}
	if v, ok := repo.ParseBool(e.Value); ok {
		return v, nil
	}
	return false, fmt.Errorf("bad boolean config value '%s' for '%s'", e.Value, e.Key)
}

// urlMatch is how specifically a config URL matched: the length of its
// host, of the path matched (counting the final '/'), and whether it named
// the user. The zero value is a plain http.<key>.
type urlMatch struct {
	host, path int
	user       bool
}

// less reports whether m is less specific than o (urlmatch.c cmp_matches).
func (m urlMatch) less(o urlMatch) bool {
	switch {
	case m.host != o.host:
		return m.host < o.host
	case m.path != o.path:
		return m.path < o.path
	}
	return !m.user && o.user
}

// matchURL matches the config URL p against the target u.
func matchURL(u, p urlForm) (urlMatch, bool) {
	var m urlMatch
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
