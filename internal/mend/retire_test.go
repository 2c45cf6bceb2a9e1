package mend

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/quarantine"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/object"
)

// TestRetireFetched: of three packs a fetch by id wrote, the one whose
// every object read right in a pack written again is set aside in the
// quarantine; one with an object that did not (or was not read there) is
// kept, as is the pack of a fetch of everything.
func TestRetireFetched(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	dir := gittest.Init(t, env, true, "")
	gittest.History(t, env, dir, 6, 4)
	all := strings.Fields(gittest.Git(t, env, dir, "rev-list", "--objects", "--all", "--no-object-names"))
	packOf := func(ids []string) string {
		name := strings.TrimSpace(string(gittest.GitIn(t, env, dir, []byte(strings.Join(ids, "\n")+"\n"), "pack-objects", "-q", filepath.Join(dir, "objects", "pack", "pack"))))
		return filepath.Join(dir, "objects", "pack", "pack-"+name+".pack")
	}
	third := len(all) / 3
	read, unread, whole := packOf(all[:third]), packOf(all[third:2*third]), packOf(all[2*third:])
	there := map[object.ID]bool{}
	for i, hex := range all {
		id, err := object.ParseID(hex)
		if err != nil {
			t.Fatal(err)
		}
		there[id] = i != third // one object of the second pack did not read right
	}
	fetched, closeFetched := openFetched([]string{read, unread, whole}, object.SHA1)
	closeFetched()
	m := &mender{r: &repo.Repo{Format: object.SHA1}, q: quarantine.For(dir), whole: whole, fetched: fetched}
	if said := m.retireFetched(there); len(said) != 0 {
		t.Fatalf("said %q", said)
	}
	if _, err := os.Stat(read); err == nil {
		t.Errorf("%s, whose every object read right elsewhere, is still read by git", read)
	}
	if kept, _ := filepath.Glob(filepath.Join(m.q.Path(), "objects", "pack", filepath.Base(strings.TrimSuffix(read, ".pack"))+".*")); len(kept) != 2 {
		t.Errorf("set aside: %v", kept)
	}
	for _, p := range []string{unread, whole} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
}
