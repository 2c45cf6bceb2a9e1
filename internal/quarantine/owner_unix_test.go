//go:build unix

package quarantine

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOwner: run as root, the folders a run makes in a repository's
// quarantine are the repository's owner's, who empties them later.
func TestOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root makes folders for another owner")
	}
	git := filepath.Join(t.TempDir(), "r.git")
	if err := os.MkdirAll(filepath.Join(git, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(git, "objects", "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(git, 65534, 65533); err != nil {
		t.Fatal(err)
	}
	d := New(nil, git, time.Date(2026, 12, 6, 4, 15, 0, 0, time.UTC))
	if err := d.Retire(filepath.Join(git, "objects", "x")); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(git, Name), d.Path(), filepath.Join(d.Path(), "objects")} {
		st, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if s := st.Sys().(*syscall.Stat_t); s.Uid != 65534 || s.Gid != 65533 {
			t.Errorf("%s is %d:%d, want 65534:65533", dir, s.Uid, s.Gid)
		}
	}
}
