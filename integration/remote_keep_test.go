package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteCloneKeepsBigPack clones a repository of more than 30,000
// objects through the helper: the clone ends with one pack (kept durably,
// its .keep removed by git after the refs were written) and no loose
// object, fsck clean; a small fetch after it is exploded into loose
// objects; fetch.unpackLimit is honoured.
func TestRemoteCloneKeepsBigPack(t *testing.T) {
	env := env(t)
	up := gittest.Init(t, env, true, "")
	gittest.History(t, env, up, 400, 3600)
	total := strings.Count(gittest.Git(t, env, up, "rev-list", "--objects", "--all"), "\n")
	if total < 30000 {
		t.Fatalf("the upstream has only %d objects", total)
	}
	work := t.TempDir()
	ours := filepath.Join(work, "ours")
	c, stats := durable(t, env, work, "clone", "-q", "--mirror", "durable::"+up, ours)
	mustRun(t, c, "clone through the helper")
	checkBatches(t, stats)
	files := packFiles(t, ours)
	if len(files["pack"]) != 1 || len(files["idx"]) != 1 || len(files["rev"]) != 1 || len(files["keep"]) != 0 || looseCount(t, ours) != 0 {
		t.Fatalf("after the clone: %v, %d loose objects", files, looseCount(t, ours))
	}
	if len(stats) != 1 || stats[0].Pack == "" || stats[0].Objects != total {
		t.Fatalf("stats %+v", stats)
	}
	gittest.Fsck(t, env, ours)
	if a, b := gittest.Objects(t, env, ours), gittest.Objects(t, env, up); a != b {
		t.Fatalf("objects differ from the upstream's: %s", firstDiff(b, a))
	}

	advance(t, env, up, 3, "")
	c, stats = durable(t, env, ours, "fetch", "-q")
	mustRun(t, c, "fetch through the helper")
	checkBatches(t, stats)
	if len(packFiles(t, ours)["pack"]) != 1 || looseCount(t, ours) == 0 || stats[0].Pack != "" {
		t.Errorf("the small fetch was not exploded: %v, %d loose", packFiles(t, ours), looseCount(t, ours))
	}
	gittest.Fsck(t, env, ours)

	// fetch.unpackLimit=1 keeps even a small fetch as a pack.
	advance(t, env, up, 2, "")
	gittest.Git(t, env, ours, "config", "fetch.unpackLimit", "1")
	c, stats = durable(t, env, ours, "fetch", "-q")
	mustRun(t, c, "fetch with fetch.unpackLimit=1")
	if len(packFiles(t, ours)["pack"]) != 2 || stats[0].Pack == "" {
		t.Errorf("fetch.unpackLimit=1 did not keep the pack: %v", packFiles(t, ours))
	}
	if keeps, _ := filepath.Glob(filepath.Join(ours, "objects/pack/*.keep")); len(keeps) != 0 {
		t.Errorf("git did not remove the lock: %v", keeps)
	}
	gittest.Fsck(t, env, ours)
	if a, b := gittest.Objects(t, env, ours), gittest.Objects(t, env, up); a != b {
		t.Fatalf("objects differ from the upstream's: %s", firstDiff(b, a))
	}
}
