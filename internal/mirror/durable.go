package mirror

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// durableURL reports whether git fetches url through the helper.
func durableURL(url string) bool {
	return strings.HasPrefix(url, "durable::") || strings.HasPrefix(url, "durable://")
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
		if !r.durable() {
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

// convert puts durable:: before the URL of each remote of rs that git
// fetches without the helper, in the repository whose git directory is
// dir, and says what it did, one phrase a URL; with dry, it only says what
// it would do. Each of its URLs that git fetches from otherwise is written
// as durable:: and the URL git connects to — url.<base>.insteadOf applied,
// so that the remote fetches from exactly where it fetched before (a rule
// that turns git:// into https:// is not undone). A remote that fetches
// through the helper already (its URL rewritten to durable::, or its vcs)
// is left as it is; so are its pushurls.
func convert(ctx context.Context, dir string, rs []remoteURL, dry bool) ([]string, error) {
	var did []string
	rules, err := insteadOfRules(ctx, dir)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if r.durable() {
			continue
		}
		key := "remote." + r.name + ".url"
		for _, old := range r.raw {
			to := insteadOf(old, rules)
			if old == "" || durableURL(to) {
				continue
			}
			did = append(did, fmt.Sprintf("remote '%s' %s -> durable::%s", r.name, transport.Anonymize(old), transport.Anonymize(to)))
			if dry {
				continue
			}
			if _, err := gitOut(ctx, dir, nil, "config", "--replace-all", key, "durable::"+to, "^"+regexp.QuoteMeta(old)+"$"); err != nil {
				return did, err
			}
		}
	}
	return did, nil
}

// insteadOfRules reads the url.<base>.insteadOf rules of the repository
// whose git directory is dir: each prefix and the base it turns into.
func insteadOfRules(ctx context.Context, dir string) ([][2]string, error) {
	out, err := gitOut(ctx, dir, nil, "config", "-z", "--get-regexp", `^url\..+\.insteadof$`)
	if err != nil {
		if strings.Contains(err.Error(), "exit status 1") {
			return nil, nil
		}
		return nil, err
	}
	var rules [][2]string
	for _, entry := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		key, value, _ := strings.Cut(entry, "\n")
		base := strings.TrimSuffix(strings.TrimPrefix(key, "url."), ".insteadof")
		rules = append(rules, [2]string{value, base})
	}
	return rules, nil
}
