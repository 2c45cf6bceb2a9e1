package quarantine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/memfstest"
)

// write makes the file path in m with data.
func write(t *testing.T, m *memfstest.FS, path, data string) {
	t.Helper()
	f, err := m.Create(path, 0o444)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(data))
	f.Close()
}

// TestRetireAndKeep: a retired file leaves its place for the run's
// folder, under its path in the git directory; a kept one stays where it
// was as well; a path outside the git directory, or in the quarantine, is
// refused; Flush flushes each directory a name left or came to.
func TestRetireAndKeep(t *testing.T) {
	git := "/r.git"
	m := memfstest.New(git+"/objects/pack", git+"/refs/heads")
	write(t, m, git+"/objects/pack/pack-1.pack", "pack")
	write(t, m, git+"/objects/pack/pack-1.idx", "idx")
	write(t, m, git+"/refs/heads/main.lock", "")
	now := time.Date(2026, 12, 6, 4, 15, 0, 0, time.UTC)
	d := New(m, git, now)
	if err := d.Retire(git + "/objects/pack/pack-1.pack"); err != nil {
		t.Fatal(err)
	}
	if err := d.Keep(git + "/objects/pack/pack-1.idx"); err != nil {
		t.Fatal(err)
	}
	if err := d.Retire(git + "/refs/heads/main.lock"); err != nil {
		t.Fatal(err)
	}
	if err := d.Retire(git + "/refs/heads/gone"); err != nil {
		t.Errorf("a file that is not there: %v", err)
	}
	for _, bad := range []string{"/elsewhere/x", git, git + "/" + Name + "/x"} {
		if err := d.Retire(bad); err == nil {
			t.Errorf("%s was set aside", bad)
		}
	}
	run := d.Path()
	if filepath.Base(run) == "" || filepath.Dir(run) != git+"/"+Name {
		t.Fatalf("run folder %s", run)
	}
	for path, want := range map[string]bool{
		git + "/objects/pack/pack-1.pack": false, run + "/objects/pack/pack-1.pack": true,
		git + "/objects/pack/pack-1.idx": true, run + "/objects/pack/pack-1.idx": true,
		git + "/refs/heads/main.lock": false, run + "/refs/heads/main.lock": true,
	} {
		if _, err := m.Stat(path); (err == nil) != want {
			t.Errorf("%s there: %v, want %v", path, err == nil, want)
		}
	}
	if got, want := d.Retired(), []string{"objects/pack/pack-1.pack", "objects/pack/pack-1.idx", "refs/heads/main.lock"}; !slices.Equal(got, want) {
		t.Errorf("retired %v, want %v", got, want)
	}
	if err := d.Flush(); err != nil {
		t.Fatal(err)
	}
	flushed := map[string]bool{}
	for _, ev := range m.Events() {
		if ev.Op == memfstest.OpFlushDir {
			flushed[ev.Path] = true
		}
	}
	for _, dir := range []string{git + "/objects/pack", run + "/objects/pack", git + "/refs/heads", run + "/refs/heads", git + "/" + Name} {
		if !flushed[dir] {
			t.Errorf("%s not flushed (flushed: %v)", dir, flushed)
		}
	}
}

// TestAdopt: a directory beside the git directory (a repository a
// reclone replaced) goes whole into the run's folder under the name given,
// which must be one name. (Its flushes: the reclone's block replays.)
func TestAdopt(t *testing.T) {
	tree := t.TempDir()
	git := filepath.Join(tree, "r.git")
	old := filepath.Join(tree, ".r.git.durable-reclone")
	for _, dir := range []string{git, filepath.Join(old, "objects")} {
		if err := os.MkdirAll(dir, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(old, "HEAD"), []byte("ref: refs/heads/main\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	d := New(nil, git, time.Date(2026, 12, 6, 4, 15, 0, 0, time.UTC))
	for _, bad := range []string{"", ".", "..", "a/b"} {
		if err := d.Adopt(old, bad); err == nil {
			t.Errorf("adopted as %q", bad)
		}
	}
	if err := d.Adopt(old, "repository"); err != nil {
		t.Fatal(err)
	}
	run := d.Path()
	if _, err := os.Stat(filepath.Join(run, "repository", "HEAD")); err != nil {
		t.Errorf("not in the run's folder: %v", err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("still beside the git directory")
	}
	if got, want := d.Retired(), []string{Name + "/" + filepath.Base(run) + "/repository"}; !slices.Equal(got, want) {
		t.Errorf("retired %v, want %v", got, want)
	}
	if err := d.Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestExpire: the folders of runs older than the cutoff go, with what they
// hold; newer ones and names that are no run's stay.
func TestExpire(t *testing.T) {
	git := "/r.git"
	m := memfstest.New(git+"/objects/pack", git+"/"+Name+"/notes")
	old, recent := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{old, recent} {
		write(t, m, git+"/objects/pack/pack-"+at.Format("0102")+".pack", "x")
		d := New(m, git, at)
		if err := d.Retire(git + "/objects/pack/pack-" + at.Format("0102") + ".pack"); err != nil {
			t.Fatal(err)
		}
	}
	names, size, err := Folders(m, git)
	if err != nil || len(names) != 2 || size != 2 {
		t.Fatalf("folders %v (%d bytes), %v", names, size, err)
	}
	n, err := Expire(m, git, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC))
	if err != nil || n != 1 {
		t.Fatalf("expired %d, %v; want 1", n, err)
	}
	left, _ := m.ReadDir(git + "/" + Name)
	if len(left) != 2 || !slices.Contains(left, "notes") || slices.Contains(left, New(m, git, old).Path()[len(git)+len(Name)+2:]) {
		t.Errorf("left %v", left)
	}
}
