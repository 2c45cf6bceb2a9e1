package integration

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// sha256Up is one SHA-256 upstream of TestRemoteSHA256 as a transport
// reaches it, and a SHA-1 one beside it for the mismatches.
type sha256Up struct {
	dir, url, plain    string // url for the helper, plain for stock git
	sha1URL, sha1Plain string
}

// TestRemoteSHA256 runs a SHA-256 repository through the helper over every
// transport (path, file://, git daemon, git http-backend, ssh through a
// fake ssh and through sshd) on protocol v0 and v2, beside stock git on
// the same upstream: clone, ls-remote, a fetch (a thin pack, exploded), a
// fetch kept as a pack, a push and a delete, a mirror's remote update
// --prune, a shallow clone and its --unshallow, and the format mismatches of fetch and push, which fail with
// git's one fatal line and 128. The upstreams are copies of one seed,
// served side by side.
func TestRemoteSHA256(t *testing.T) {
	t.Parallel() // see "Parallel tests" in harness_test.go
	env := env(t)
	seeds := t.TempDir()
	seed := newUpstreamOf(t, env, seeds, "seed.git", "sha256", 12, 20)
	seed1 := newUpstreamOf(t, env, seeds, "seed1.git", "sha1", 2, 2)
	base := t.TempDir()
	port := startDaemon(t, env, base)
	web := startHTTP(t, httpBackend(t, env, base))
	env = append(env, "GIT_SSH_COMMAND="+fakeSSH(t, seeds), "GIT_SSH_VARIANT=ssh")
	n := 0
	copyOf := func(t *testing.T, seed string) string {
		n++
		dir := filepath.Join(base, fmt.Sprintf("up%d.git", n))
		if err := os.CopyFS(dir, os.DirFS(seed)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	run := func(t *testing.T, env []string, url func(dir string) string, plain func(dir string) string) {
		for _, v := range []string{"0", "2"} {
			t.Run("v"+v, func(t *testing.T) {
				env := append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.version", "GIT_CONFIG_VALUE_0="+v)
				dir, dir1 := copyOf(t, seed), copyOf(t, seed1)
				sha256Scenario(t, env, sha256Up{dir, url(dir), plain(dir), url(dir1), plain(dir1)})
			})
		}
	}
	fileURL := func(d string) string { return "file://" + d }
	same := func(d string) string { return d }
	for _, k := range []struct {
		name string
		url  func(dir string) string
	}{
		{"path", same},
		{"file", fileURL},
		{"git", func(d string) string { return fmt.Sprintf("git://127.0.0.1:%d/%s", port, filepath.Base(d)) }},
		{"http", func(d string) string { return web + "/" + filepath.Base(d) }},
		{"ssh", func(d string) string { return "ssh://git@fakehost:2222" + d }},
	} {
		plain := k.url
		if k.name == "path" {
			plain = fileURL // stock git would copy the files
		}
		t.Run(k.name, func(t *testing.T) { run(t, env, k.url, plain) })
	}
	t.Run("sshd", func(t *testing.T) {
		ssh, port := startSSHD(t, env, t.TempDir(), "AcceptEnv GIT_PROTOCOL")
		u, err := user.Current()
		if err != nil {
			t.Skip("no user name: ", err)
		}
		env := append(env, "GIT_SSH_COMMAND="+ssh, "GIT_SSH_VARIANT=ssh")
		url := func(d string) string { return "ssh://" + u.Username + "@127.0.0.1:" + strconv.Itoa(port) + d }
		if probe := gittest.Exec(t, env, "", nil, "git", "ls-remote", url(seed)); probe.Code != 0 {
			t.Skipf("stock git cannot log in to the test's sshd: %s", probe.Stderr)
		}
		run(t, env, url, url)
	})
}

// sha256Scenario is what TestRemoteSHA256 does over one transport and
// protocol.
func sha256Scenario(t *testing.T, env []string, up sha256Up) {
	work := t.TempDir()
	ours, theirs := filepath.Join(work, "ours"), filepath.Join(work, "theirs")
	c, stats := durable(t, env, work, "clone", "durable::"+up.url, ours)
	mustRun(t, c, "clone through the helper")
	gittest.Git(t, env, work, "clone", "-q", up.plain, theirs)
	if f := strings.TrimSpace(gittest.Git(t, env, ours, "rev-parse", "--show-object-format")); f != "sha256" {
		t.Fatalf("the clone is a %s repository", f)
	}
	sameRepo(t, env, ours, theirs)
	checkBatches(t, stats)

	lsOurs := gittest.Exec(t, env, work, nil, "git", "ls-remote", "durable::"+up.url)
	lsTheirs := gittest.Exec(t, env, work, nil, "git", "ls-remote", up.plain)
	mustRun(t, lsOurs, "ls-remote through the helper")
	if a, b := string(lsTheirs.Stdout), string(lsOurs.Stdout); a != b || len(strings.Fields(a)[0]) != 64 {
		t.Fatalf("ls-remote:\ngit:\n%s\nours:\n%s", a, b)
	}

	// The helper's packet trace, over every transport: over v2 its
	// requests name the format, as fetch-pack's do.
	advance(t, env, up.dir, 2, "v100")
	packets := filepath.Join(work, "packets")
	c, stats = durable(t, append(env, "GIT_TRACE_PACKET="+packets), ours, "fetch")
	mustRun(t, c, "fetch through the helper")
	trace := strings.Join(packetLines(t, packets, "durable"), "\n") + "\n"
	v2 := strings.Contains(trace, "< version 2\n")
	echo := strings.Count(trace, "> object-format=sha256\n")
	if want := strings.HasSuffix(t.Name(), "/v2"); v2 != want || (v2 && echo != 2) {
		t.Errorf("protocol v2 %v, want %v; object-format named %d times:\n%.3000s", v2, want, echo, trace)
	}
	gittest.Git(t, env, theirs, "fetch", "-q")
	sameRepo(t, env, ours, theirs)
	checkBatches(t, stats)

	// fetch.unpackLimit=1: the pack is kept, and its index is SHA-256's.
	advance(t, env, up.dir, 2, "v101")
	before := len(packsOf(t, ours)) // the clone's
	c, stats = durable(t, env, ours, "-c", "fetch.unpackLimit=1", "fetch")
	mustRun(t, c, "fetch kept as a pack")
	gittest.Git(t, env, theirs, "fetch", "-q")
	checkBatches(t, stats)
	if packs := packsOf(t, ours); len(packs) != before+1 || len(stats) != 1 || stats[0].Pack == "" {
		t.Fatalf("packs %v (%d before), stats %+v", packs, before, stats)
	}
	if a, b := gittest.Objects(t, env, theirs), gittest.Objects(t, env, ours); a != b || refs(t, env, ours) != refs(t, env, theirs) {
		t.Fatalf("after the kept pack: objects or refs differ: %s", firstDiff(a, b))
	}
	gittest.Fsck(t, env, ours)

	gittest.WriteFile(t, ours, "pushed.txt", "pushed\n")
	gittest.Git(t, env, ours, "add", "pushed.txt")
	gittest.Git(t, env, ours, "commit", "-q", "-m", "pushed")
	c = gittest.Exec(t, env, ours, nil, "git", "push", "origin", "HEAD:refs/heads/pushed")
	mustRun(t, c, "push through the helper")
	if a, b := gittest.Git(t, env, up.dir, "rev-parse", "pushed"), gittest.Git(t, env, ours, "rev-parse", "HEAD"); a != b {
		t.Fatalf("pushed %s, the upstream has %s", b, a)
	}
	gittest.Fsck(t, env, up.dir)
	c = gittest.Exec(t, env, ours, nil, "git", "push", "origin", ":refs/heads/pushed")
	mustRun(t, c, "delete through the helper")
	if c := gittest.Exec(t, env, up.dir, nil, "git", "rev-parse", "-q", "--verify", "refs/heads/pushed"); c.Code == 0 {
		t.Fatal("the branch was not deleted")
	}

	mirrors, theirsM := filepath.Join(work, "ours.git"), filepath.Join(work, "theirs.git")
	c, _ = durable(t, env, work, "clone", "--mirror", "durable::"+up.url, mirrors)
	mustRun(t, c, "mirror clone through the helper")
	gittest.Git(t, env, work, "clone", "-q", "--mirror", up.plain, theirsM)
	gittest.Git(t, env, up.dir, "update-ref", "refs/heads/main", "main~3") // a force-push back
	gittest.Git(t, env, up.dir, "update-ref", "-d", "refs/heads/side")
	gittest.Git(t, env, up.dir, "update-ref", "-d", "refs/tags/v10")
	c, _ = durable(t, env, mirrors, "remote", "update", "--prune")
	mustRun(t, c, "remote update --prune through the helper")
	gittest.Git(t, env, theirsM, "remote", "update", "--prune")
	if a, b, u := refs(t, env, theirsM), refs(t, env, mirrors), refs(t, env, up.dir); a != b || b != u {
		t.Fatalf("mirror refs:\ngit:\n%s\nours:\n%s\nupstream:\n%s", a, b, u)
	}
	gittest.Fsck(t, env, mirrors)

	shallow, theirsS := filepath.Join(work, "shallow"), filepath.Join(work, "theirs-shallow")
	c, _ = durable(t, env, work, "clone", "--depth", "1", "durable::"+up.url, shallow)
	mustRun(t, c, "shallow clone through the helper")
	gittest.Git(t, env, work, "clone", "-q", "--depth", "1", up.plain, theirsS)
	sameShallow(t, shallow, theirsS)
	c, _ = durable(t, env, shallow, "fetch", "--unshallow")
	mustRun(t, c, "fetch --unshallow through the helper")
	gittest.Git(t, env, theirsS, "fetch", "-q", "--unshallow")
	// The tags the whole history now reaches come with the next fetch,
	// from what is here (TestRemoteShallow says why), on both sides.
	c, _ = durable(t, env, shallow, "fetch")
	mustRun(t, c, "fetch after --unshallow")
	gittest.Git(t, env, theirsS, "fetch", "-q")
	sameRepo(t, env, shallow, theirsS)

	sha256Mismatches(t, env, up)
}

// sha256Mismatches: a fetch from the SHA-256 upstream into a SHA-1
// repository, from the SHA-1 one into a SHA-256 repository, and a push
// fail as stock git's do: git's exit code (128; a push over HTTP, where git
// runs send-pack through its own helper, 1) and its first fatal line (the
// helper's only one; stock git's second is the server's hang-up), the
// refs as they were.
func sha256Mismatches(t *testing.T, env []string, up sha256Up) {
	sha1Repo := gittest.Init(t, env, false, "sha1")
	sha256Repo := gittest.Init(t, env, false, "sha256")
	gittest.WriteFile(t, sha1Repo, "a.txt", "a\n")
	gittest.Git(t, env, sha1Repo, "add", "a.txt")
	gittest.Git(t, env, sha1Repo, "commit", "-q", "-m", "a")
	fetch := func(url string) []string { return []string{"fetch", url} }
	push := func(url string) []string { return []string{"push", url, "HEAD:refs/heads/x"} }
	for _, tc := range []struct {
		name, repo string
		args       func(url string) []string
		url, plain string
	}{
		{"fetch sha256 into sha1", sha1Repo, fetch, up.url, up.plain},
		{"fetch sha1 into sha256", sha256Repo, fetch, up.sha1URL, up.sha1Plain},
		{"push sha1 to sha256", sha1Repo, push, up.url, up.plain},
	} {
		before := refs(t, env, tc.repo)
		theirs := gittest.Exec(t, env, tc.repo, nil, "git", tc.args(tc.plain)...)
		want, _, _ := strings.Cut(string(theirs.Stderr), "\n")
		ours := gittest.Exec(t, env, tc.repo, nil, "git", tc.args("durable::"+tc.url)...)
		first, _, _ := strings.Cut(string(ours.Stderr), "\n")
		if theirs.Code == 0 || ours.Code != theirs.Code || first != want || strings.Count(string(ours.Stderr), "fatal:") != 1 || !strings.HasPrefix(want, "fatal: ") {
			t.Errorf("%s: git exit %d\n%s\nours exit %d\n%s", tc.name, theirs.Code, theirs.Stderr, ours.Code, ours.Stderr)
		}
		if got := refs(t, env, tc.repo); got != before {
			t.Errorf("%s: refs changed:\n%s", tc.name, got)
		}
	}
}
