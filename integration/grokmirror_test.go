package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// grokRoot is where .ci/run extracts Debian's grokmirror package (trixie's
// 2.0, pure Python); GROKMIRROR names another place.
const grokRoot = "/opt/grokmirror"

// grok returns a command that runs the grokmirror tool name (grok-pull,
// grok-manifest) from the extracted package with Debian's python3, or
// skips the test with the reason it cannot.
func grok(t *testing.T) func(name string, args ...string) *exec.Cmd {
	t.Helper()
	root := os.Getenv("GROKMIRROR")
	if root == "" {
		root = grokRoot
	}
	lib := filepath.Join(root, "usr/lib/python3/dist-packages")
	if _, err := os.Stat(filepath.Join(root, "usr/bin/grok-pull")); err != nil {
		t.Skipf("grokmirror is not extracted at %s (.ci/run does it: Debian trixie's package): %v", root, err)
	}
	if out, err := exec.Command("/usr/bin/python3", "-c", "import requests, packaging").CombinedOutput(); err != nil {
		t.Skipf("grokmirror needs python3-requests and python3-packaging: %v %s", err, out)
	}
	return func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command("/usr/bin/python3", append([]string{filepath.Join(root, "usr/bin", name)}, args...)...)
		cmd.Env = append(os.Environ(), "PYTHONPATH="+lib)
		return cmd
	}
}

// TestGrokmirror drives kernel.org's grok-pull over three repositories of
// an origin (one nested), with [remote] site = durable::file://<origin> as
// the README shows: the first run clones them through the helper, a second
// one after the origin moved on updates them; each time every mirror has
// the origin's refs and objects, git fsck is clean, and every fetch left
// its session line in the statistics file.
func TestGrokmirror(t *testing.T) {
	run := grok(t)
	env := env(t)
	base := t.TempDir()
	origin, mirror := filepath.Join(base, "origin"), filepath.Join(base, "mirror")
	names := []string{"a.git", "b.git", "sub/c.git"}
	for _, d := range []string{filepath.Join(origin, "sub"), mirror} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		newUpstream(t, env, origin, n)
	}
	manifest := func() {
		t.Helper()
		cmd := run("grok-manifest", "-m", filepath.Join(origin, "manifest.js.gz"), "-t", origin)
		cmd.Env = append(cmd.Env, env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("grok-manifest: %v\n%s", err, out)
		}
	}
	conf := filepath.Join(base, "repos.conf")
	gittest.WriteFile(t, base, "repos.conf", "[core]\ntoplevel = "+mirror+"\nmanifest = ${toplevel}/manifest.js.gz\nlog = ${toplevel}/log\n"+
		"[remote]\nsite = durable::file://"+origin+"\nmanifest = file://"+filepath.Join(origin, "manifest.js.gz")+"\n"+
		"[pull]\npull_threads = 2\nretries = 1\n")
	stats := filepath.Join(base, "stats.jsonl")
	pull := func(what string) {
		t.Helper()
		os.Remove(stats)
		cmd := run("grok-pull", "-v", "-c", conf)
		cmd.Env = append(append(cmd.Env, env...), "GIT_REMOTE_DURABLE_STATS="+stats)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("grok-pull (%s): %v\n%s", what, err, out)
		}
		sessions := readSessions(t, stats)
		fetched := 0
		for _, s := range sessions {
			if s.Result == "fetched" {
				fetched++
			}
			if s.Result == "failed" {
				t.Errorf("%s: a failed fetch: %+v", what, s)
			}
		}
		if fetched != len(names) {
			t.Errorf("%s: %d fetches through the helper, want %d: %+v", what, fetched, len(names), sessions)
		}
		checkBatches(t, readStats(t, stats))
		for _, n := range names {
			m := filepath.Join(mirror, n)
			if url := strings.TrimSpace(gittest.Git(t, env, m, "config", "remote._grokmirror.url")); url != "durable::file://"+filepath.Join(origin, n) {
				t.Errorf("%s: %s fetches from %s", what, n, url)
			}
			if a, b := refs(t, env, m), refs(t, env, filepath.Join(origin, n)); a != b {
				t.Errorf("%s: %s: refs\n%s\norigin\n%s", what, n, a, b)
			}
			gittest.Fsck(t, env, m)
		}
	}
	manifest()
	pull("first run")
	for _, n := range names {
		advance(t, env, filepath.Join(origin, n), 2, "v9")
	}
	manifest()
	pull("update")
}
