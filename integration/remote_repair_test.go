package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteRepairs poisons a clone as a crash during a fetch without
// fsync does (the next commit's object left empty under its final name,
// refs not updated): stock git's fetch trusts the empty file and fails,
// the helper's fetch replaces it and completes. Then git fetch --refetch
// gets everything again without haves.
func TestRemoteRepairs(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	dir := newUpstream(t, env, base, "up.git")
	url := "file://" + dir
	ours, theirs := filepath.Join(base, "ours"), filepath.Join(base, "theirs")
	c, _ := durable(t, env, "", "clone", "durable::"+url, ours)
	mustRun(t, c, "clone")
	gittest.Git(t, env, "", "clone", "-q", "-c", "fetch.unpackLimit=1000", url, theirs)
	advance(t, env, dir, 1, "")
	tip := strings.TrimSpace(gittest.Git(t, env, dir, "rev-parse", "main"))
	for _, repo := range []string{ours, theirs} {
		p := filepath.Join(repo, ".git/objects", tip[:2], tip[2:])
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if c := gittest.Exec(t, env, theirs, nil, "git", "-c", "fetch.unpackLimit=1000", "fetch", "-q"); c.Code == 0 {
		t.Log("stock git's fetch did not fail on the empty object (git repaired it?)")
	} else {
		t.Logf("stock git: exit %d: %s", c.Code, strings.TrimSpace(string(c.Stderr)))
	}
	c, stats := durable(t, env, ours, "fetch")
	mustRun(t, c, "fetch into the poisoned clone")
	checkBatches(t, stats)
	if stats[0].Repaired != 1 {
		t.Errorf("%d objects repaired, want 1", stats[0].Repaired)
	}
	gittest.Fsck(t, env, ours)
	if got := strings.TrimSpace(gittest.Git(t, env, ours, "rev-parse", "origin/main")); got != tip {
		t.Fatalf("origin/main is %s, want %s", got, tip)
	}

	// --refetch: no haves, every object again, kept as a pack (more than
	// git's unpack limit), as git's refetch keeps it.
	all := strings.Count(gittest.Git(t, env, dir, "rev-list", "--objects", "main"), "\n")
	// (git repacks after a refetch: not in the background, which would
	// outlive the test.)
	c, stats = durable(t, env, ours, "-c", "gc.autoDetach=false", "fetch", "--refetch", "origin", "main")
	mustRun(t, c, "fetch --refetch")
	if len(stats) != 1 || stats[0].Objects < all || stats[0].Pack == "" {
		t.Fatalf("refetch: %+v, want at least %d objects in a kept pack", stats, all)
	}
}
