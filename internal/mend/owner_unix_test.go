//go:build unix

package mend

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOwnLike: run as root, every file and directory of a new git
// directory gets the owner and group of its namesake in the old one, and
// what the old one lacks those of the nearest directory above it.
func TestOwnLike(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root changes an owner")
	}
	from, to := t.TempDir(), t.TempDir()
	for _, d := range []string{from, to} {
		if err := os.MkdirAll(filepath.Join(d, "objects", "pack"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "config"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(to, "objects", "pack", "pack-1.pack"), nil, 0o444); err != nil {
		t.Fatal(err)
	}
	owners := map[string][2]int{"": {65534, 65534}, "config": {65533, 65532}, "objects": {65534, 65531}, "objects/pack": {65530, 65531}}
	for rel, o := range owners {
		if err := os.Lchown(filepath.Join(from, rel), o[0], o[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := ownLike(from, to); err != nil {
		t.Fatal(err)
	}
	owners["objects/pack/pack-1.pack"] = owners["objects/pack"]
	for rel, o := range owners {
		st, err := os.Lstat(filepath.Join(to, rel))
		if err != nil {
			t.Fatal(err)
		}
		s := st.Sys().(*syscall.Stat_t)
		if int(s.Uid) != o[0] || int(s.Gid) != o[1] {
			t.Errorf("%s: %d:%d, want %d:%d", rel, s.Uid, s.Gid, o[0], o[1])
		}
	}
}
