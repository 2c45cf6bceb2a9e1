package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// poison breaks the loose object id of the clone at dir as a crash of a
// writer that did not sync leaves it: empty, or with a byte of its
// deflated data flipped.
func poison(t *testing.T, dir, id string, empty bool) {
	t.Helper()
	p := filepath.Join(dir, ".git/objects", id[:2], id[2:])
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if empty {
		b = nil
	} else {
		b[len(b)/2] ^= 0xff
	}
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o444); err != nil {
		t.Fatal(err)
	}
}

// TestRemoteHealReads: a clone one of whose loose objects is broken — one
// that git's connectivity check after the next fetch reads: a subtree the
// new commit keeps, or the commit before the tip — fails every later fetch
// of plain git ("did not send all necessary objects"). What broke it was
// a crash, so a boot followed: through the helper, over protocol v2, the
// first session of the boot reads every loose object (the sweep), fetches
// the broken one by its id and repairs it before git's check reads it
// (the helper runs no check of its own then: git's after the fetch finds
// nothing it could heal, see TestRemoteFetchProcesses): the fetch
// succeeds, git fsck --strict is clean, refs and objects equal those of
// the same fetch into a sound copy, and the upstream saw one fetch request
// more. The heal asks for the object only: a commit comes alone
// where the upstream filters (http here, uploadpack.allowFilter), else with
// its tree (file://), and a tree with what it holds; never the history.
// Over v0 the fetch fails as git's.
func TestRemoteHealReads(t *testing.T) {
	t.Parallel() // see "Parallel tests" in harness_test.go
	for _, tc := range []struct{ kind, version string }{{"file", "2"}, {"http", "2"}, {"file", "0"}} {
		t.Run(tc.kind+"-v"+tc.version, func(t *testing.T) {
			env, base, dir, url, trace, fetches := newHealUpstream(t, tc.kind, tc.version, tc.kind == "http")
			clone := filepath.Join(base, "clone")
			c, _ := durable(t, env, base, "-c", "fetch.unpackLimit=100000", "clone", "-q", "durable::"+url, clone)
			mustRun(t, c, "clone")
			advance(t, env, dir, 1, "")
			rev := func(r string) string { return strings.TrimSpace(gittest.Git(t, env, clone, "rev-parse", r)) }
			under := func(id string) int { // the objects a tree or commit holds
				return strings.Count(gittest.Git(t, env, clone, "ls-tree", "-r", "-t", id), "\n")
			}
			for _, p := range []struct {
				what, id string
				alone    int // what the heal's pack holds without a filter
			}{
				{"subtree", rev("origin/main:dir2"), 1 + under(rev("origin/main:dir2"))},
				{"commit", rev("origin/main~1"), 2 + under(rev("origin/main~1"))},
			} {
				for _, empty := range []bool{true, false} {
					name := p.what + map[bool]string{true: "-empty", false: "-corrupt"}[empty]
					t.Run(name, func(t *testing.T) {
						copyOf := func(n string) string {
							dst := filepath.Join(base, name+"-"+n)
							gittest.Exec(t, env, "", nil, "cp", "-a", clone, dst)
							return dst
						}
						sound, ours, theirs := copyOf("sound"), copyOf("ours"), copyOf("theirs")
						poison(t, ours, p.id, empty)
						poison(t, theirs, p.id, empty)
						// What broke them was a crash: a boot followed it.
						rebooted(t, filepath.Join(ours, ".git"))
						gittest.Git(t, env, theirs, "config", "remote.origin.url", url)
						// git's fetch reads the commit as it negotiates (exit
						// 128), the subtree in its connectivity check (1).
						broken := "fatal: loose object " + p.id + " (stored in .git/objects/" + p.id[:2] + "/" + p.id[2:] + ") is corrupt"
						plain := gittest.Exec(t, env, theirs, nil, "git", "fetch", "-q")
						if plain.Code == 0 || !strings.Contains(string(plain.Stderr), broken) {
							t.Fatalf("plain git's fetch into the broken clone: exit %d\n%s", plain.Code, plain.Stderr)
						}

						env := append(env, "GIT_TRACE_PACKET="+trace)
						fetches()
						c, _ := durable(t, env, sound, "fetch")
						mustRun(t, c, "fetch into the sound clone")
						want := fetches()
						c, stats := durable(t, env, ours, "fetch")
						got := fetches()
						t.Logf("fetch requests: %d into the sound clone, %d into the broken one", want, got)
						if tc.version == "0" {
							// The helper's negotiation does not die on the
							// commit: git's check after it does (exit 1).
							if c.Code != 1 || !strings.Contains(string(c.Stderr), broken) || !strings.Contains(string(c.Stderr), "did not send all necessary objects") {
								t.Errorf("v0: exit %d (git's %d)\n%s", c.Code, plain.Code, c.Stderr)
							}
							if got != want {
								t.Errorf("v0: %d fetch requests, the sound clone's fetch %d", got, want)
							}
							return
						}
						mustRun(t, c, "fetch into the broken clone")
						if got != want+1 || want == 0 {
							t.Errorf("%d fetch requests, the sound clone's fetch %d: want one more", got, want)
						}
						if !strings.Contains(string(c.Stderr), "warning: object "+p.id+" of the repository was broken") {
							t.Errorf("no warning of the repair:\n%s", c.Stderr)
						}
						checkBatches(t, stats)
						var repaired, healBatch int64
						for _, s := range stats {
							repaired += s.Repaired
							if s.Repaired > 0 {
								healBatch = int64(s.Objects)
							}
						}
						alone := int64(p.alone)
						if tc.kind == "http" {
							alone = 1 // deepen 1 and filter tree:0
						}
						if repaired != 1 || healBatch != alone {
							t.Errorf("%d objects repaired, the heal's pack held %d, want 1 and %d: %+v", repaired, healBatch, alone, stats)
						}
						gittest.Fsck(t, env, ours)
						if a, b := refs(t, env, sound), refs(t, env, ours); a != b {
							t.Errorf("refs: sound clone\n%s\nhealed\n%s", a, b)
						}
						if a, b := gittest.Objects(t, env, sound), gittest.Objects(t, env, ours); a != b {
							t.Errorf("objects differ: %s", firstDiff(a, b))
						}
					})
				}
			}
		})
	}
}
