package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestMirrorCheck: git-remote-durable --check says, without fetching, what
// a fetch into a mirror would do — its durable:: remote, the helper git
// finds, the method and the filesystem, the unpack limit, whether the refs
// are synced — and exits 1 where durability would be off: the sync turned
// off by name, no remote through durable::, no helper git can find.
func TestMirrorCheck(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	m := filepath.Join(base, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, m)
	check := func(env []string, args ...string) *gittest.Cmd {
		return gittest.Exec(t, env, m, nil, filepath.Join(binDir, "git-remote-durable"), append([]string{"--check"}, args...)...)
	}
	c := check(env)
	mustRun(t, c, "check")
	for _, want := range []string{"remote        origin: durable::file://" + up, "helper        " + filepath.Join(binDir, "git-remote-durable") + " (git-remote-durable version",
		"objects       batch: a writeout", "refs          files: the loose refs and packed-refs git wrote, with HEAD, config and shallow, made durable", "unpack limit  100:", "durable       yes"} {
		if !strings.Contains(string(c.Stdout), want) {
			t.Errorf("no %q in\n%s", want, c.Stdout)
		}
	}
	if c := check(env, m); c.Code != 0 {
		t.Errorf("--check <dir>: exit %d\n%s", c.Code, c.Stderr)
	}

	gittest.Git(t, env, m, "config", "core.fsyncMethod", "bathc")
	if c := check(env); c.Code != 0 || !strings.Contains(string(c.Stdout), "settings      objects are synced with batch (") {
		t.Errorf("a typo: exit %d\n%s", c.Code, c.Stdout)
	}
	gittest.Git(t, env, m, "config", "core.fsync", "none")
	if c := check(env); c.Code != 1 || !strings.Contains(string(c.Stdout), "durable       no: objects are not durable (none)") {
		t.Errorf("core.fsync=none: exit %d\n%s", c.Code, c.Stdout)
	}
	gittest.Git(t, env, m, "config", "--unset", "core.fsync")
	gittest.Git(t, env, m, "config", "remote.origin.url", up)
	if c := check(env); c.Code != 1 || !strings.Contains(string(c.Stdout), "durable       no: remote 'origin' fetches without durable::") {
		t.Errorf("no durable:: remote: exit %d\n%s", c.Code, c.Stdout)
	}
	gittest.Git(t, env, m, "config", "remote.origin.url", "durable::file://"+up)
	var bare []string
	for _, e := range env {
		if !strings.HasPrefix(e, "PATH=") {
			bare = append(bare, e)
		}
	}
	if c := check(append(bare, "PATH=/usr/bin:/bin")); c.Code != 1 || !strings.Contains(string(c.Stdout), "git finds no git-remote-durable") {
		t.Errorf("no helper on PATH: exit %d\n%s", c.Code, c.Stdout)
	}
}

// TestMirrorCheckTree: --check given a tree of mirrors walks it as the
// runner does and says one line per repository — durable or not, and why
// not — exit 1 where any is not.
func TestMirrorCheckTree(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	good, plain, none := filepath.Join(tree, "good.git"), filepath.Join(tree, "deep", "plain.git"), filepath.Join(tree, "none.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, good)
	gittest.Git(t, env, base, "clone", "-q", "--mirror", up, plain)
	gittest.Git(t, env, base, "init", "-q", "--bare", none)
	c := gittest.Exec(t, env, base, nil, filepath.Join(binDir, "git-remote-durable"), "--check", tree)
	want := []string{
		good + " durable: yes",
		none + " durable: no: no remote to fetch from",
		plain + " durable: no: remote 'origin' fetches without durable::",
	}
	lines := strings.Split(strings.TrimSuffix(string(c.Stdout), "\n"), "\n")
	if c.Code != 1 || len(lines) != 3 || !strings.Contains(string(c.Stderr), "error: 2 of 3 repositories would not fetch durably") {
		t.Errorf("exit %d\n%s\n%s", c.Code, c.Stdout, c.Stderr)
	}
	for _, w := range want {
		if !strings.Contains(string(c.Stdout), w) {
			t.Errorf("no %q in\n%s", w, c.Stdout)
		}
	}
	c = gittest.Exec(t, env, base, nil, filepath.Join(binDir, "git-remote-durable"), "--check", good, filepath.Dir(plain))
	if c.Code != 1 || strings.Count(string(c.Stdout), "\n") != 2 {
		t.Errorf("two directories: exit %d\n%s", c.Code, c.Stdout)
	}
}
