package integration

import (
	"fmt"
	"net/http/cgi"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteNegotiationHaves: on the same update of a mirror with 2,000
// refs like GitHub's refs/pull/N/head, the helper sends the upstream no
// more haves than git's own fetch — counted where upload-pack reads them
// (GIT_TRACE_PACKET of the upload-pack) — over a stateful v0 connection
// (file://), v2 (file://, git://) and stateless HTTP (v0 and v2); and the
// mirror it updates has git's refs.
func TestRemoteNegotiationHaves(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstreamOf(t, env, base, "up.git", "sha1", 5, 300)
	commits := strings.Fields(gittest.Git(t, env, up, "rev-list", "main"))
	var pulls strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&pulls, "create refs/pull/%d/head %s\n", i, commits[(i*7)%len(commits)])
	}
	gittest.GitIn(t, env, up, []byte(pulls.String()), "update-ref", "--stdin")

	trace := filepath.Join(base, "served.trace")
	served := append(append([]string{}, env...), "GIT_TRACE_PACKET="+trace)
	port := startDaemon(t, served, base)
	backend := httpBackend(t, env, base).(*cgi.Handler)
	backend.Env = append(backend.Env, "GIT_TRACE_PACKET="+trace)
	web := startHTTP(t, backend)
	// haves counts the "have" lines upload-pack read since the last call.
	seen := 0
	haves := func() int {
		b, _ := os.ReadFile(trace)
		n := strings.Count(string(b), "upload-pack< have ")
		defer func() { seen = n }()
		return n - seen
	}
	daemon := fmt.Sprintf("git://127.0.0.1:%d/up.git", port)
	for i, c := range []struct {
		name, url, version, algorithm string
		work                          int // local commits on a branch of the clone's own
	}{
		{"file v0", "file://" + up, "0", "consecutive", 0},
		{"file v2", "file://" + up, "2", "consecutive", 0},
		{"git v0 local work", daemon, "0", "consecutive", 100},
		{"git v2", daemon, "2", "consecutive", 0},
		{"git v2 local work", daemon, "2", "consecutive", 100},
		{"git v2 skipping", daemon, "2", "skipping", 100},
		{"http v0", web + "/up.git", "0", "consecutive", 0},
		{"http v0 local work", web + "/up.git", "0", "consecutive", 100},
		{"http v2 local work", web + "/up.git", "2", "consecutive", 100},
		{"file v2 noop", "file://" + up, "2", "noop", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := append(append([]string{}, served...), "GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=protocol.version", "GIT_CONFIG_VALUE_0="+c.version,
				"GIT_CONFIG_KEY_1=fetch.negotiationAlgorithm", "GIT_CONFIG_VALUE_1="+c.algorithm)
			dir := t.TempDir()
			ours, theirs := filepath.Join(dir, "ours.git"), filepath.Join(dir, "theirs.git")
			gittest.Git(t, run, dir, "clone", "-q", "--mirror", "durable::"+c.url, ours)
			gittest.Git(t, run, dir, "clone", "-q", "--mirror", c.url, theirs)
			for _, m := range []string{ours, theirs} {
				work(t, env, m, c.work)
			}
			// Three new commits on main, dated after the last case's.
			for j := 0; j < 3; j++ {
				tip := strings.TrimSpace(gittest.Git(t, gittest.Tick(env, 2000+10*i+j), up, "commit-tree", "-p", "main",
					"-m", fmt.Sprintf("update %d.%d", i, j), "main^{tree}"))
				gittest.Git(t, env, up, "update-ref", "refs/heads/main", tip)
			}
			haves()
			gittest.Git(t, run, theirs, "fetch", "-q")
			git := haves()
			gittest.Git(t, run, ours, "fetch", "-q")
			helper := haves()
			if helper > git || git == 0 && c.algorithm != "noop" {
				t.Errorf("haves sent: the helper %d, git %d", helper, git)
			}
			t.Logf("haves sent: the helper %d, git %d", helper, git)
			if a, b := refs(t, env, theirs), refs(t, env, ours); a != b {
				t.Errorf("refs differ:\ngit:\n%.500s\nours:\n%.500s", a, b)
			}
			gittest.Fsck(t, env, ours)
		})
	}
}

// work adds a branch of n commits of the repository's own, newer than
// the upstream's, to the repository dir.
func work(t *testing.T, env []string, dir string, n int) {
	t.Helper()
	parent := strings.TrimSpace(gittest.Git(t, env, dir, "rev-parse", "main"))
	tree := strings.TrimSpace(gittest.Git(t, env, dir, "rev-parse", "main^{tree}"))
	for i := 0; i < n; i++ {
		parent = strings.TrimSpace(gittest.Git(t, gittest.Tick(env, 9000+i), dir, "commit-tree", "-p", parent, "-m", fmt.Sprintf("work %d", i), tree))
	}
	if n > 0 {
		gittest.Git(t, env, dir, "update-ref", "refs/work", parent)
	}
}

// TestRemoteNegotiationNewestFirst: a mirror of twenty release branches
// whose names sort oldest first (rel-00 at the history's start, rel-19 at
// its tip), each of which gets a commit of its own: the helper sends its
// tips newest commit first, as git's negotiators do, so that the upstream,
// ready as soon as every want has a common ancestor, answers with the
// twenty new commits and no history — at most 1.1 times the objects plain
// git's fetch receives on the same update. (Sent in the refs' names'
// order, the first round's oldest tips made the upstream send everything
// since rel-15.)
func TestRemoteNegotiationNewestFirst(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstreamOf(t, env, base, "up.git", "sha1", 30, 200)
	line := strings.Fields(gittest.Git(t, env, up, "rev-list", "main"))
	var rels strings.Builder
	for i := range 20 {
		fmt.Fprintf(&rels, "create refs/heads/rel-%02d %s\n", i, line[190-10*i])
	}
	gittest.GitIn(t, env, up, []byte(rels.String()), "update-ref", "--stdin")
	ours, theirs := filepath.Join(base, "ours.git"), filepath.Join(base, "theirs.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, ours)
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "file://"+up, theirs)
	for i := range 20 {
		b := fmt.Sprintf("rel-%02d", i)
		gittest.WriteFile(t, base, "f", fmt.Sprintf("a fix on %s\n", b))
		blob := strings.TrimSpace(gittest.Git(t, env, up, "hash-object", "-w", filepath.Join(base, "f")))
		tree := strings.TrimSpace(string(gittest.GitIn(t, env, up, []byte("100644 blob "+blob+"\tfix.txt\n"), "mktree")))
		c := strings.TrimSpace(gittest.Git(t, gittest.Tick(env, 5000+i), up, "commit-tree", "-p", b, "-m", "fix", tree))
		gittest.Git(t, env, up, "update-ref", "refs/heads/"+b, c)
	}
	before := inPack(t, env, theirs)
	gittest.Git(t, env, theirs, "-c", "fetch.unpackLimit=1", "fetch", "-q")
	git := inPack(t, env, theirs) - before
	c, stats := durable(t, env, ours, "-c", "fetch.unpackLimit=1", "fetch", "-q")
	mustRun(t, c, "the helper's fetch")
	got := 0
	for _, s := range stats {
		got += s.Objects
	}
	if git == 0 || got > git*11/10 {
		t.Errorf("the helper received %d objects, plain git %d", got, git)
	}
	if a, b := refs(t, env, ours), refs(t, env, theirs); a != b {
		t.Errorf("refs\n%s\nplain git's\n%s", a, b)
	}
}

// inPack is how many objects the packs of the repository dir hold.
func inPack(t *testing.T, env []string, dir string) int {
	t.Helper()
	for _, l := range strings.Split(gittest.Git(t, env, dir, "count-objects", "-v"), "\n") {
		if v, ok := strings.CutPrefix(l, "in-pack: "); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}
