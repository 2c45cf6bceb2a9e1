package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
)

// readShallow returns the commits listed in $GIT_DIR/shallow.
func readShallow(gitDir string) ([]plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, "shallow"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return hashes(b), nil
}

// updateShallow records the shallow boundary after a fetch, as git's
// fetch-pack does for a helper with the fetch capability (git itself leaves
// $GIT_DIR/shallow to the helper): a deepening fetch replaces it with what
// the upstream said (old plus "shallow" lines, minus "unshallow" lines,
// nothing left after --unshallow); a clone of a shallow upstream, or a fetch
// with update-shallow, adds the upstream's own shallow commits.
func (h *helper) updateShallow(gitDir string, old []plumbing.Hash, resp *packp.UploadPackResponse, ar *packp.AdvRefs) error {
	set := map[plumbing.Hash]bool{}
	for _, id := range old {
		set[id] = true
	}
	changed := false
	if h.set.depth > 0 || !h.set.deepenSince.IsZero() {
		for _, id := range resp.Shallows {
			changed = changed || !set[id]
			set[id] = true
		}
		for _, id := range resp.Unshallows {
			changed = changed || set[id]
			delete(set, id)
		}
	}
	if (h.set.cloning || h.set.updateShallow) && len(ar.Shallows) > 0 {
		for _, id := range ar.Shallows {
			changed = changed || !set[id]
			set[id] = true
		}
	}
	if !changed {
		return nil
	}
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id.String())
	}
	sort.Strings(ids)
	return writeShallow(gitDir, ids)
}

// writeShallow replaces $GIT_DIR/shallow through shallow.lock, as git does,
// synced before the rename; no commits removes the file.
func writeShallow(gitDir string, ids []string) error {
	path := filepath.Join(gitDir, "shallow")
	lock := path + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("Unable to create '%s': File exists.", lock)
		}
		return err
	}
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(id + "\n")
	}
	_, err = f.WriteString(b.String())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && len(ids) == 0 {
		os.Remove(lock)
		err = os.Remove(path)
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		return err
	}
	if err == nil {
		err = os.Rename(lock, path)
	}
	if err != nil {
		os.Remove(lock)
	}
	return err
}
