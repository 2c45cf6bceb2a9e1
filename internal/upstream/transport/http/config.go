package http

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/internal/upstream/transport/urlmatch"
)

// config answers "the value of http.<key> for this URL" the way git's
// http.c reads its settings through urlmatch.c: an http.<url>.<key> entry
// applies when its URL matches (scheme exactly, host with "*" per label,
// port with the scheme's default, path as a prefix at a '/' boundary, user
// if the entry names one), and the most specific match wins over a plain
// http.<key>, host before path before user.
type config struct {
	cfg    repo.Config
	target urlmatch.URL
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
	var best urlmatch.Score
	seen := false
	for _, e := range c.cfg {
		if !strings.HasPrefix(e.Key, "http.") || !strings.HasSuffix(e.Key, name) || len(e.Key) < len("http")+len(name) {
			continue
		}
		var m urlmatch.Score
		if sub := e.Key[len("http") : len(e.Key)-len(name)]; sub != "" {
			p, ok := urlmatch.Parse(sub[1:], transport.DefaultPort)
			if !ok || !c.ok {
				continue
			}
			if m, ok = urlmatch.Match(c.target, p); !ok {
				continue
			}
		}
		if seen && m.Less(best) {
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

// formOf is the address in the form http.<url>.* keys are matched
// against, made from its parsed parts: its user but no password, the
// scheme's own port left out.
func formOf(a *transport.Address) (urlmatch.URL, bool) {
	port := ""
	if a.Port != 0 && a.Port != a.Scheme.Port() {
		port = strconv.Itoa(a.Port)
	}
	return urlmatch.Make(string(a.Scheme), a.User, a.Host, port, a.Path)
}
