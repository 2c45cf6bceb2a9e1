package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// repair puts right, in the git directory dir, what a crash during an
// earlier update can leave there and git fails on before it starts the
// helper — a lock file no process holds any more (git: "Unable to create
// … .lock: File exists"), an empty or garbled loose ref ("bad object"), a
// torn packed-refs ("unterminated line in packed-refs"), a ref whose
// object is gone — and says what it did, one phrase each. A lock file
// last written before cutoff is one no process holds: from before the
// boot, or older than an update may last (the runner holds the
// repository, so no update of its own runs there).
func repair(ctx context.Context, dir string, cutoff time.Time) ([]string, error) {
	var did []string
	locks, err := removeStaleLocks(dir, cutoff)
	if err != nil {
		return did, err
	}
	if len(locks) > 0 {
		did = append(did, "removed the stale lock "+plural(len(locks), "file", "files")+" "+strings.Join(locks, ", "))
	}
	dropped, err := repairPackedRefs(dir)
	if err != nil {
		return did, err
	}
	if dropped > 0 {
		did = append(did, fmt.Sprintf("dropped %d torn %s of packed-refs", dropped, plural(dropped, "line", "lines")))
	}
	broken, err := removeBrokenRefs(filepath.Join(dir, "refs"))
	if err != nil {
		return did, err
	}
	for _, r := range broken {
		did = append(did, "removed the broken ref "+r)
	}
	// A tip git cannot read (an object a crash broke) stops the check:
	// that is the helper's to heal, by its id, once the update runs.
	missing, _ := removeMissingTips(ctx, dir)
	for _, r := range missing {
		did = append(did, "removed "+r+", whose object is missing")
	}
	return did, nil
}

// removeStaleLocks removes git's lock files in dir (HEAD.lock,
// config.lock, packed-refs.lock, shallow.lock, index.lock) and under refs
// that were last written before cutoff, and returns their names (relative
// to dir).
func removeStaleLocks(dir string, cutoff time.Time) ([]string, error) {
	var removed []string
	remove := func(p string, d fs.DirEntry) error {
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".lock") {
			return nil
		}
		st, err := d.Info()
		if err != nil || !st.ModTime().Before(cutoff) {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		name, _ := filepath.Rel(dir, p)
		removed = append(removed, quotePath(filepath.ToSlash(name)))
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if err := remove(filepath.Join(dir, e.Name()), e); err != nil {
			return removed, err
		}
	}
	err = filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		return remove(p, d)
	})
	return removed, err
}
