package integration

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteCloneAndFetch clones through the helper and with stock git
// from each kind of upstream, then fetches new commits (thin packs against
// what the clone has, an annotated tag followed) into both: refs, HEAD,
// tags and objects must be the same, fsck --strict clean, every object
// loose, and every fetch batch durable with one hardware flush.
func TestRemoteCloneAndFetch(t *testing.T) {
	forKinds(t, func(t *testing.T, env []string, up upstream) {
		work := t.TempDir()
		ours, theirs := filepath.Join(work, "ours"), filepath.Join(work, "theirs")
		c, stats := durable(t, env, work, "clone", "durable::"+up.url, ours)
		mustRun(t, c, "clone through the helper")
		gittest.Git(t, env, work, "clone", "-q", up.plain, theirs)
		sameRepo(t, env, ours, theirs)
		checkBatches(t, stats)
		if got := gittest.Git(t, env, ours, "config", "remote.origin.url"); strings.TrimSpace(got) != "durable::"+up.url {
			t.Errorf("remote.origin.url = %q", got)
		}

		before := strings.TrimSpace(gittest.Git(t, env, up.dir, "rev-parse", "main"))
		advance(t, env, up.dir, 3, "v100")
		newObjects := strings.Count(gittest.Git(t, env, up.dir, "rev-list", "--objects", "main", "^"+before), "\n") + 1 // + the tag
		// The helper traces its dialogue (GIT_TRACE_PACKET), over every
		// transport: it asked for a thin pack and said what it has (v0:
		// thin-pack among the first want's capabilities; v2: a line of
		// its own), in the protocol version git would use.
		packets := filepath.Join(work, "packets")
		c, stats = durable(t, append(env, "GIT_TRACE_PACKET="+packets), ours, "fetch")
		mustRun(t, c, "fetch through the helper")
		trace := strings.Join(packetLines(t, packets, "durable"), "\n") + "\n"
		firstWant := regexp.MustCompile(`(?m)^> want .*$`).FindString(trace)
		thin := strings.Contains(firstWant, " thin-pack") || strings.Contains(trace, "> thin-pack\n")
		if !thin || !strings.Contains(trace, "> have ") {
			t.Errorf("the helper did not ask for a thin pack against its haves:\n%.2000s", trace)
		}
		if v2 := strings.Contains(trace, "< version 2\n"); v2 != (protocolOf(t) == "2") {
			t.Errorf("protocol v2 spoken: %v, want protocol %s:\n%.2000s", v2, protocolOf(t), trace)
		}
		gittest.Git(t, env, theirs, "fetch", "-q")
		sameRepo(t, env, ours, theirs)
		checkBatches(t, stats)
		total := 0
		for _, s := range stats {
			total += s.Objects
		}
		if total != newObjects {
			t.Errorf("the fetch received %d objects; the new history has %d (haves not used?)", total, newObjects)
		}
		if !strings.Contains(refs(t, env, ours), "refs/tags/v100") {
			t.Error("the new annotated tag was not followed")
		}

		// Nothing new: no fetch batch at all.
		c, stats = durable(t, env, ours, "fetch")
		mustRun(t, c, "second fetch")
		if len(stats) != 0 {
			t.Errorf("an up-to-date fetch ran %d batches", len(stats))
		}
	})
}

// TestRemoteShallow clones with --depth 1 through the helper and with
// stock git: the shallow file, refs and objects must agree; then --deepen
// (relative to the boundary) and --unshallow.
func TestRemoteShallow(t *testing.T) {
	forKinds(t, func(t *testing.T, env []string, up upstream) {
		work := t.TempDir()
		ours, theirs := filepath.Join(work, "ours"), filepath.Join(work, "theirs")
		plain := up.plain
		if !strings.Contains(plain, "://") {
			plain = "file://" + plain
		}
		c, stats := durable(t, env, work, "clone", "--depth", "1", "durable::"+up.url, ours)
		mustRun(t, c, "shallow clone through the helper")
		gittest.Git(t, env, work, "clone", "-q", "--depth", "1", plain, theirs)
		sameRepo(t, env, ours, theirs)
		checkBatches(t, stats)
		shallow := func(dir string) string { return gittest.Git(t, env, dir, "rev-parse", "--is-shallow-repository") }
		if s := shallow(ours); strings.TrimSpace(s) != "true" {
			t.Fatalf("ours is not shallow: %s", s)
		}
		sameShallow(t, ours, theirs)
		if a, b := gittest.Git(t, env, theirs, "rev-list", "--count", "HEAD"), gittest.Git(t, env, ours, "rev-list", "--count", "HEAD"); a != b {
			t.Fatalf("history: git %s, ours %s", a, b)
		}

		c, _ = durable(t, env, ours, "fetch", "--deepen=2")
		mustRun(t, c, "fetch --deepen=2 through the helper")
		gittest.Git(t, env, theirs, "fetch", "-q", "--deepen=2")
		if a, b := gittest.Git(t, env, theirs, "rev-list", "--count", "HEAD"), gittest.Git(t, env, ours, "rev-list", "--count", "HEAD"); a != b || a == "1\n" {
			t.Fatalf("after --deepen=2: git %s, ours %s", a, b)
		}
		sameShallow(t, ours, theirs)
		c, _ = durable(t, env, ours, "fetch", "--unshallow")
		mustRun(t, c, "fetch --unshallow through the helper")
		gittest.Git(t, env, theirs, "fetch", "-q", "--unshallow")
		if s := shallow(ours); strings.TrimSpace(s) != "false" {
			t.Fatalf("ours is still shallow: %s", s)
		}
		// git 2.39 does not re-read the loose object directories after a
		// helper's fetch, so the tags that the deepened history now
		// reaches are followed by the next fetch (from what is here).
		c, stats = durable(t, env, ours, "fetch")
		mustRun(t, c, "fetch after --unshallow")
		if len(stats) != 0 {
			t.Errorf("the tags came with a fetch batch: %+v", stats)
		}
		if protocolOf(t) == "0" {
			// Plain git over v0 does not follow those tags with
			// --unshallow either where the transport is stateless
			// (HTTP): its next fetch does, as the helper's does.
			gittest.Git(t, env, theirs, "fetch", "-q")
		}
		sameRepo(t, env, ours, theirs)
	})
}

// TestRemoteMirror keeps a mirror (git clone --mirror, then git remote
// update --prune, as a mirror server's cron job does) through the helper
// and with stock git, while the upstream is force-pushed, loses a branch
// and gains one.
func TestRemoteMirror(t *testing.T) {
	forKinds(t, func(t *testing.T, env []string, up upstream) {
		work := t.TempDir()
		ours, theirs := filepath.Join(work, "ours.git"), filepath.Join(work, "theirs.git")
		c, stats := durable(t, env, work, "clone", "--mirror", "durable::"+up.url, ours)
		mustRun(t, c, "mirror clone through the helper")
		gittest.Git(t, env, work, "clone", "-q", "--mirror", up.plain, theirs)
		sameRepo(t, env, ours, theirs)
		checkBatches(t, stats)
		for round, change := range []func(){
			func() {
				gittest.Git(t, env, up.dir, "update-ref", "refs/heads/main", "main~5") // a force-push back
				gittest.Git(t, env, up.dir, "update-ref", "-d", "refs/heads/side")
				gittest.Git(t, env, up.dir, "update-ref", "refs/heads/topic", "main~2")
			},
			func() {
				advance(t, env, up.dir, 2, "v200")
				gittest.Git(t, env, up.dir, "update-ref", "-d", "refs/tags/v10")
			},
		} {
			change()
			c, stats = durable(t, env, ours, "remote", "update", "--prune")
			mustRun(t, c, "remote update through the helper")
			gittest.Git(t, env, theirs, "remote", "update", "--prune")
			if a, b := refs(t, env, theirs), refs(t, env, ours); a != b {
				t.Fatalf("round %d: refs differ:\ngit:\n%s\nours:\n%s", round, a, b)
			}
			if a, b := refs(t, env, up.dir), refs(t, env, ours); a != b {
				t.Fatalf("round %d: the mirror differs from the upstream:\n%s\n%s", round, a, b)
			}
			gittest.Fsck(t, env, ours)
			if round == 1 {
				checkBatches(t, stats)
			}
		}
	})
}
