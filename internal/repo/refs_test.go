package repo

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// TestRefValues: the refs read from the files backend — packed-refs (its
// peeled lines left out), loose refs winning over packed ones, symbolic
// refs left to their targets — are the values git for-each-ref lists; where the
// refs are not kept so (another ref storage, a file git does not write),
// git lists them, and the reason is given.
func TestRefValues(t *testing.T) {
	env := sealed(t)
	dir := gittest.Init(t, env, true, "")
	t.Setenv("GIT_DIR", dir)
	tree := strings.TrimSpace(string(gittest.GitIn(t, env, dir, nil, "mktree")))
	var commits []string
	for i := 0; i < 4; i++ {
		commits = append(commits, strings.TrimSpace(gittest.Git(t, gittest.Tick(env, i), dir, "commit-tree", "-m", "c", tree)))
	}
	for i, name := range []string{"refs/heads/main", "refs/heads/side", "refs/pull/1/head"} {
		gittest.Git(t, env, dir, "update-ref", name, commits[i])
	}
	gittest.Git(t, env, dir, "tag", "-a", "-m", "t", "v1", commits[0])
	gittest.Git(t, env, dir, "pack-refs", "--all")
	gittest.Git(t, env, dir, "update-ref", "refs/heads/side", commits[3]) // loose, over the packed one
	gittest.Git(t, env, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/main")
	want := sortedIDs(t, gittest.Git(t, env, dir, "for-each-ref", "--format=%(objectname)"))

	r := &Repo{GitDir: dir, CommonDir: dir}
	ids, fellBack, err := r.RefValues(context.Background())
	if err != nil || fellBack != "" || idList(ids) != want {
		t.Errorf("files: %v, fell back %q\n%s\nwant\n%s", err, fellBack, idList(ids), want)
	}
	// Said to be reftable, with no tables.list: git lists them.
	r.Config = Config{{Key: "extensions.refstorage", Value: "reftable"}}
	if ids, fellBack, err = r.RefValues(context.Background()); err != nil || !strings.Contains(fellBack, "tables.list") || idList(ids) != want {
		t.Errorf("reftable: %v, fell back %q", err, fellBack)
	}
	r.Config = nil
	if err := os.WriteFile(filepath.Join(dir, "refs/heads/odd"), []byte("not an id\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, fellBack, _ = r.RefValues(context.Background()); !strings.Contains(fellBack, "not a ref git writes") {
		t.Errorf("an odd loose ref: fell back %q", fellBack)
	}
}

func sortedIDs(t *testing.T, out string) string {
	var ids []object.ID
	for _, l := range strings.Fields(out) {
		id, err := object.ParseID(l)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return idList(ids)
}

// idList is the set of ids, sorted: a symbolic ref git lists by its
// target's value repeats one.
func idList(ids []object.ID) string {
	var s []string
	seen := map[object.ID]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			s = append(s, id.String())
		}
	}
	sort.Strings(s)
	return strings.Join(s, "\n")
}
