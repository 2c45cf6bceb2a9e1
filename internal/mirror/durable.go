package mirror

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// remoteURL is a remote of a repository and the URL git fetches it from,
// url.<base>.insteadOf applied.
type remoteURL struct{ name, url string }

// durableURL reports whether git fetches url through the helper.
func durableURL(url string) bool {
	return strings.HasPrefix(url, "durable::") || strings.HasPrefix(url, "durable://")
}

// remotesOf lists the remotes of the repository whose git directory is
// dir as git remote -v names them for fetching.
func remotesOf(ctx context.Context, dir string) ([]remoteURL, error) {
	out, err := gitOut(ctx, dir, nil, "remote", "-v")
	if err != nil {
		return nil, err
	}
	var rs []remoteURL
	for _, l := range strings.Split(string(out), "\n") {
		name, url, ok := strings.Cut(l, "\t")
		if url, fetch := strings.CutSuffix(url, " (fetch)"); ok && fetch {
			rs = append(rs, remoteURL{name, url})
		}
	}
	return rs, nil
}

// notDurable says why an update of a repository with the remotes rs,
// whose helper sessions added up to s, did not write durably: no remote,
// a remote git fetches without the helper, or settings that left the
// helper's writes unsynced. It returns "" for a durable one.
func notDurable(rs []remoteURL, s session) string {
	if len(rs) == 0 {
		return "no remote to fetch from"
	}
	var plain []string
	for _, r := range rs {
		if !durableURL(r.url) {
			plain = append(plain, "'"+r.name+"'")
		}
	}
	if len(plain) > 0 {
		return fmt.Sprintf("%s %s without durable:: (--convert converts %s)", plural(len(plain), "remote", "remotes")+" "+strings.Join(plain, ", "),
			plural(len(plain), "fetches", "fetch"), plural(len(plain), "it", "them"))
	}
	if notFlushed(s.Path) {
		why := s.Settings
		if why == "" {
			why = "core.fsync or core.fsyncMethod turns syncing off"
		}
		return fmt.Sprintf("objects are written without a flush (%s): %s", s.Path, why)
	}
	return ""
}

// notFlushed reports whether a session that synced by path (batch.Path)
// left objects without a flush.
func notFlushed(path string) bool { return !repo.Flushed(path) }

// convert puts durable:: before the URL of each remote of rs (as git
// remote -v names them) that git fetches without the helper, in the
// repository whose git directory is dir, and says what it did, one phrase
// a remote; with dry, it only says what it would do. A URL that
// url.<base>.insteadOf makes durable is left as it is.
func convert(ctx context.Context, dir string, rs []remoteURL, dry bool) ([]string, error) {
	var did []string
	for _, r := range rs {
		if durableURL(r.url) {
			continue
		}
		key := "remote." + r.name + ".url"
		out, err := gitOut(ctx, dir, nil, "config", "--get-all", key)
		if err != nil {
			return did, err
		}
		for _, old := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if old == "" || durableURL(old) {
				continue
			}
			did = append(did, fmt.Sprintf("remote '%s' %s -> durable::%s", r.name, transport.Anonymize(old), transport.Anonymize(old)))
			if dry {
				continue
			}
			if _, err := gitOut(ctx, dir, nil, "config", "--replace-all", key, "durable::"+old, "^"+regexp.QuoteMeta(old)+"$"); err != nil {
				return did, err
			}
		}
	}
	return did, nil
}
