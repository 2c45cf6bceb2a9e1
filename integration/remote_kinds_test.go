package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// kind is a way to reach an upstream: serve makes the repository dir
// (under base) reachable and returns the upstream, and the environment
// git needs for it.
type kind struct {
	name  string
	serve func(t *testing.T, env []string, base, dir string) (upstream, []string)
}

// kinds are the upstreams every scenario runs against: a bare repository
// by path and by file://, git daemon (git://), git http-backend (smart
// HTTP), and ssh through GIT_SSH_COMMAND (a fake ssh that runs the remote
// command locally; TestRemoteRealSSH uses sshd when it can).
var kinds = []kind{
	{"path", func(t *testing.T, env []string, base, dir string) (upstream, []string) {
		return upstream{dir: dir, url: dir, plain: "file://" + dir}, env
	}},
	{"file", func(t *testing.T, env []string, base, dir string) (upstream, []string) {
		return upstream{dir: dir, url: "file://" + dir}, env
	}},
	{"git", func(t *testing.T, env []string, base, dir string) (upstream, []string) {
		port := startDaemon(t, env, base)
		return upstream{dir: dir, url: fmt.Sprintf("git://127.0.0.1:%d/%s", port, filepath.Base(dir))}, env
	}},
	{"http", func(t *testing.T, env []string, base, dir string) (upstream, []string) {
		u := startHTTP(t, httpBackend(t, env, base))
		return upstream{dir: dir, url: u + "/" + filepath.Base(dir)}, env
	}},
	{"ssh", func(t *testing.T, env []string, base, dir string) (upstream, []string) {
		ssh := fakeSSH(t, base)
		return upstream{dir: dir, url: "ssh://git@fakehost:2222" + dir}, append(env, "GIT_SSH_COMMAND="+ssh, "GIT_SSH_VARIANT=ssh")
	}},
}

// forKinds runs f once per kind and protocol version, on a fresh upstream
// with a history: "<kind>" with git's default (protocol v2), "<kind>-v0"
// with protocol.version=0, for the helper and plain git alike.
func forKinds(t *testing.T, f func(t *testing.T, env []string, up upstream)) {
	for _, k := range kinds {
		for _, v := range []string{"", "-v0"} {
			t.Run(k.name+v, func(t *testing.T) {
				env := env(t)
				if v == "-v0" {
					env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.version", "GIT_CONFIG_VALUE_0=0")
				}
				base := t.TempDir()
				up, env := k.serve(t, env, base, newUpstream(t, env, base, "up.git"))
				if up.plain == "" {
					up.plain = up.url
				}
				f(t, env, up)
			})
		}
	}
}

// protocolOf is the protocol version forKinds's subtest runs with.
func protocolOf(t *testing.T) string {
	if strings.HasSuffix(t.Name(), "-v0") {
		return "0"
	}
	return "2"
}

// refs returns "<id> <name>" for every ref of the repository, and what HEAD
// points at.
func refs(t *testing.T, env []string, dir string) string {
	t.Helper()
	out := gittest.Git(t, env, dir, "for-each-ref", "--format=%(objectname) %(refname)")
	head := gittest.Exec(t, env, dir, nil, "git", "symbolic-ref", "-q", "HEAD")
	return out + "HEAD -> " + string(head.Stdout)
}

// sameRepo fails unless ours and theirs have the same refs, HEAD and
// objects; ours must pass fsck --strict and keep packs where git does.
func sameRepo(t *testing.T, env []string, ours, theirs string) {
	t.Helper()
	if a, b := refs(t, env, theirs), refs(t, env, ours); a != b {
		t.Fatalf("refs differ:\ngit clone:\n%s\nours:\n%s", a, b)
	}
	want, got := gittest.Objects(t, env, theirs), gittest.Objects(t, env, ours)
	if want != got {
		t.Fatalf("objects differ: git %d, ours %d lines; %s", strings.Count(want, "\n"), strings.Count(got, "\n"), firstDiff(want, got))
	}
	gittest.Fsck(t, env, ours)
	// A pack where git keeps one (a clone, a fetch of at least its unpack
	// limit). (git's shallow clone over HTTP and protocol v0 explodes a
	// small pack where the helper's clone keeps it.)
	if len(packsOf(t, theirs)) > 0 && len(packsOf(t, ours)) == 0 {
		t.Fatalf("git kept a pack, ours none")
	}
}

// packsOf lists the packs of the repository at dir (bare or not).
func packsOf(t *testing.T, dir string) []string {
	t.Helper()
	var packs []string
	for _, d := range []string{filepath.Join(dir, "objects/pack"), filepath.Join(dir, ".git/objects/pack")} {
		p, _ := filepath.Glob(filepath.Join(d, "*.pack"))
		packs = append(packs, p...)
	}
	return packs
}

// mustRun fails unless the command exited 0 without a fatal line.
func mustRun(t *testing.T, c *gittest.Cmd, what string) {
	t.Helper()
	if c.Code != 0 || strings.Contains(string(c.Stderr), "fatal:") {
		t.Fatalf("%s: exit %d\n%s", what, c.Code, c.Stderr)
	}
}

// advance adds n commits to the upstream's main (editing files, so that a
// fetch gets deltas against objects the client has: a thin pack) and an
// annotated tag on the last one, through a scratch clone.
func advance(t *testing.T, env []string, dir string, n int, tag string) {
	t.Helper()
	work := t.TempDir()
	gittest.Git(t, env, work, "clone", "-q", "--no-local", dir, work)
	for i := 0; i < n; i++ {
		for _, f := range []string{"dir0/sub0/file0.txt", "dir1/sub1/file1.txt"} {
			p := filepath.Join(work, f)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, fmt.Sprintf("more %s %d\n", tag, i)...)
			if err := os.WriteFile(p, b, 0o666); err != nil {
				t.Fatal(err)
			}
		}
		gittest.Git(t, gittest.Tick(env, 1000+i), work, "commit", "-q", "-a", "-m", fmt.Sprintf("%s %d", tag, i))
	}
	if tag != "" {
		gittest.Git(t, env, work, "tag", "-a", "-m", tag, tag)
	}
	gittest.Git(t, env, work, "push", "-q", "origin", "main", "--tags")
}

// sortedLines sorts the lines of s.
func sortedLines(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(l)
	return strings.Join(l, "\n")
}
