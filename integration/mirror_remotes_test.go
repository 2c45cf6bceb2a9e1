//go:build !windows

package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// The runner, --check and --convert read a repository's remotes from its
// configuration as git reads them: its URLs, pushurls, partial clone
// filter and url.<base>.insteadOf rules, not from git remote -v's text.

// TestMirrorRemotesPartial: a partial clone (--filter=blob:none) through
// the helper is durable to --check and the runner, and a plain one is
// converted by --convert. (Before: git remote -v's "[blob:none]" made the
// URL unreadable: "no remote to fetch from", and "every remote fetches
// through durable::" for a plain one.)
func TestMirrorRemotesPartial(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	gittest.Git(t, env, up, "config", "uploadpack.allowFilter", "true")
	tree := filepath.Join(base, "tree")
	ours, plain := filepath.Join(tree, "ours.git"), filepath.Join(tree, "plain.git")
	gittest.Git(t, env, base, "clone", "-q", "--bare", "--filter=blob:none", "durable::file://"+up, ours)
	gittest.Git(t, env, base, "clone", "-q", "--bare", "--filter=blob:none", "file://"+up, plain)
	c := gittest.Exec(t, env, ours, nil, filepath.Join(binDir, "git-remote-durable"), "--check")
	if c.Code != 0 || !strings.Contains(string(c.Stdout), "[blob:none]") {
		t.Errorf("--check of the durable partial clone: exit %d\n%s%s", c.Code, c.Stdout, c.Stderr)
	}
	c = runner(t, env, "--convert", "--dry-run", tree)
	if l := runnerLine(t, c, plain); !strings.Contains(l, "would convert remote 'origin' file://"+up+" -> durable::file://"+up) {
		t.Errorf("--convert --dry-run of the plain partial clone: %q", l)
	}
	if l := runnerLine(t, c, ours); !strings.Contains(l, "every remote fetches through durable::") {
		t.Errorf("--convert --dry-run of the durable partial clone: %q", l)
	}
	advance(t, env, up, 1, "")
	c = runner(t, env, "--require-durable", tree)
	if l := runnerLine(t, c, ours); !strings.Contains(l, " ok ") {
		t.Errorf("the runner on the durable partial clone: %q", l)
	}
}

// TestMirrorRemotesURLs: a remote with two URLs (git fetches from the
// first), one with a pushurl, and one whose URL url.<base>.insteadOf
// rewrites: --convert writes durable:: before every URL, as the URL git
// connects to (the rewritten one), leaves the pushurl alone, and the
// update then fetches from exactly where it fetched before. (Before: the
// raw URL was converted, and the mirror fetched from the address the rule
// had rewritten away.)
func TestMirrorRemotesURLs(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	decoy := newUpstreamOf(t, env, base, "decoy.git", "sha1", 3, 3) // where the raw URL leads
	tree := filepath.Join(base, "tree")
	m := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "file://"+up, m)
	gittest.Git(t, env, m, "config", "remote.origin.url", "file:///old-name/up.git")
	gittest.Git(t, env, m, "config", "url.file://"+filepath.Dir(up)+"/.insteadOf", "file:///old-name/")
	gittest.Git(t, env, m, "config", "--add", "remote.origin.url", "file://"+decoy)
	gittest.Git(t, env, m, "config", "remote.origin.pushurl", "file://"+decoy)
	c := runner(t, env, "--convert", tree)
	l := runnerLine(t, c, m)
	if c.Code != 0 || !strings.Contains(l, "remote 'origin' file:///old-name/up.git -> durable::file://"+up) {
		t.Errorf("exit %d, %q", c.Code, l)
	}
	urls := strings.Fields(gittest.Git(t, env, m, "config", "--get-all", "remote.origin.url"))
	if len(urls) != 2 || urls[0] != "durable::file://"+up || urls[1] != "durable::file://"+decoy {
		t.Errorf("remote.origin.url: %v", urls)
	}
	if p := strings.TrimSpace(gittest.Git(t, env, m, "config", "remote.origin.pushurl")); p != "file://"+decoy {
		t.Errorf("remote.origin.pushurl: %q", p)
	}
	advance(t, env, up, 1, "")
	mustRun(t, runner(t, env, "--require-durable", tree), "the update after --convert")
	if a, b := refs(t, env, m), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
}
