package objstore

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/object"
)

// brokenBlob leaves an empty loose file where the blob data would be, as
// a crash of a writer that did not sync leaves it, and returns its id.
func brokenBlob(t *testing.T, objects, data string) object.ID {
	t.Helper()
	id, err := object.SHA1.Sum(object.Blob, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	d, rest := id.Shard()
	if err := os.MkdirAll(filepath.Join(objects, d), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(objects, d, rest), nil, 0o444); err != nil {
		t.Fatal(err)
	}
	return id
}

// repair writes the blob data again through run, over its broken copy.
func repair(t *testing.T, run *Run, id object.ID, data string) {
	t.Helper()
	tx := run.Policy.Begin()
	if need, err := run.Store.Need(id); err != nil || !need {
		t.Fatalf("%s: need %v, %v", id, need, err)
	}
	if err := run.Store.Write(tx, id, object.Blob, []byte(data)); err != nil {
		t.Fatal(err)
	}
	if err := tx.End(); err != nil {
		t.Fatal(err)
	}
}

// TestRunRepaired: a run counts what it repaired, not what a run within
// it did (a heal's, within a fetch's unpack), nor what one before it did.
func TestRunRepaired(t *testing.T) {
	dir := t.TempDir()
	objects := filepath.Join(dir, "objects")
	r := &repo.Repo{GitDir: dir, CommonDir: dir, ObjectDir: objects, Format: object.SHA1}
	a, b, c := brokenBlob(t, objects, "a"), brokenBlob(t, objects, "b"), brokenBlob(t, objects, "c")
	s, err := Open(r, func(string) string { return "" }, io.Discard, true)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	outer := s.Begin()
	repair(t, outer, a, "a")
	inner := s.Begin()
	repair(t, inner, b, "b")
	if n := inner.Repaired(); n != 1 {
		t.Errorf("the inner run repaired %d, want 1", n)
	}
	inner.End()
	if n := outer.Repaired(); n != 1 {
		t.Errorf("the outer run repaired %d, want 1 (not the inner run's)", n)
	}
	outer.End()
	outer.End()
	next := s.Begin()
	repair(t, next, c, "c")
	if n := next.Repaired(); n != 1 {
		t.Errorf("the next run repaired %d, want 1 (not those before it)", n)
	}
	if st := next.Policy.Stats(); st.WriteoutOnly+st.HardwareFlush == 0 && st.Path != "none" {
		t.Errorf("the next run's policy counted no sync: %+v", st)
	}
}
