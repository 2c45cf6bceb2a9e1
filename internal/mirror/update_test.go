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

// TestTakeLock: the runner's lock of a repository is taken once; a second
// take, while the first holds it, finds it busy, and takes it once it is
// let go.
func TestTakeLock(t *testing.T) {
	dir := t.TempDir()
	f, busy, err := takeLock(dir)
	if err != nil || busy || f == nil {
		t.Fatalf("first take: %v, busy %v", err, busy)
	}
	if g, busy, err := takeLock(dir); err != nil || !busy || g != nil {
		t.Errorf("second take while held: %v, busy %v", err, busy)
	}
	f.Close()
	g, busy, err := takeLock(dir)
	if err != nil || busy {
		t.Fatalf("take once let go: %v, busy %v", err, busy)
	}
	g.Close()
}
