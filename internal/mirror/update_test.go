//go:build !windows

package mirror

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStillThere: a lock file is still there while its name leads to it;
// once a reclone's exchange put another repository (and its lock) under
// the name, it is not.
func TestStillThere(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, lockName)
	f, err := openLock(lock, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !stillThere(f, lock) {
		t.Fatal("the lock just opened is not there")
	}
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, lock); err != nil {
		t.Fatal(err)
	}
	if stillThere(f, lock) {
		t.Error("a lock replaced under its name is still there")
	}
	os.Remove(lock)
	if stillThere(f, lock) {
		t.Error("a lock removed is still there")
	}
}
