package mirror

import (
	"context"
	"strings"
)

// remoteURL is a remote of a repository: its name, the URL git fetches it
// from (url.<base>.insteadOf applied: what git connects to), the URLs as
// the configuration writes them (remote.<name>.url, every value), and its
// partial clone filter, if any.
type remoteURL struct {
	name, url string
	raw       []string
	filter    string
	// vcs is remote.<name>.vcs: git runs git-remote-<vcs> for the remote
	// whatever its URL says.
	vcs string
}

// remotesOf lists the remotes of the repository whose git directory is
// dir, read from the configuration as git reads it (every scope, git -c):
// each remote.<name>.url, remote.<name>.vcs and partialclonefilter, and
// the url.<base>.insteadOf rules that rewrite the URLs. A remote is a
// name with a URL, in the order the configuration first names it; git
// fetches from its first URL.
func remotesOf(ctx context.Context, dir string) ([]remoteURL, error) {
	out, err := gitOut(ctx, dir, nil, "config", "-z", "--get-regexp", `^(remote\..+\.(url|vcs|partialclonefilter)|url\..+\.insteadof)$`)
	if err != nil {
		if strings.Contains(err.Error(), "exit status 1") {
			return nil, nil // no such key: no remote
		}
		return nil, err
	}
	byName := map[string]*remoteURL{}
	var order []string
	var rules [][2]string // insteadOf prefix, base
	for _, entry := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		key, value, _ := strings.Cut(entry, "\n")
		if base, ok := strings.CutPrefix(key, "url."); ok {
			if base, ok := strings.CutSuffix(base, ".insteadof"); ok {
				rules = append(rules, [2]string{value, base})
			}
			continue
		}
		rest := strings.TrimPrefix(key, "remote.")
		dot := strings.LastIndexByte(rest, '.')
		name, field := rest[:dot], rest[dot+1:]
		r := byName[name]
		if r == nil {
			r = &remoteURL{name: name}
			byName[name] = r
			order = append(order, name)
		}
		switch field {
		case "url":
			r.raw = append(r.raw, value)
		case "vcs":
			r.vcs = value
		case "partialclonefilter":
			r.filter = value
		}
	}
	var rs []remoteURL
	for _, name := range order {
		r := byName[name]
		if len(r.raw) == 0 {
			continue
		}
		r.url = insteadOf(r.raw[0], rules)
		rs = append(rs, *r)
	}
	return rs, nil
}

// insteadOf is url rewritten by the url.<base>.insteadOf rule whose prefix
// is its longest match, as git's remote.c rewrites it; url itself where
// none matches.
func insteadOf(url string, rules [][2]string) string {
	best := -1
	for i, r := range rules {
		if strings.HasPrefix(url, r[0]) && (best < 0 || len(r[0]) > len(rules[best][0])) {
			best = i
		}
	}
	if best < 0 {
		return url
	}
	return rules[best][1] + url[len(rules[best][0]):]
}

// durable reports whether git fetches r through the helper: its URL (as
// rewritten) says durable::, or its vcs names the helper.
func (r remoteURL) durable() bool { return durableURL(r.url) || r.vcs == "durable" }
