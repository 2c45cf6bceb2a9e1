package remote

import (
	"bytes"
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
// fetch-pack update_shallow does for a helper with the fetch capability
// (git itself leaves $GIT_DIR/shallow to the helper). A deepening fetch
// replaces it with what the upstream answered (old plus "shallow" lines,
// minus "unshallow" lines, nothing left after --unshallow); the shallow
// lines of the advertisement are not looked at then. Otherwise those
// lines say where the upstream itself is shallow, and only commits that
// exist here after the pack count: a clone records them all; a later
// fetch records, with update-shallow, those the fetched tips reach
// (shallowReached), and without it refuses the fetch when there are any,
// where git rejects the refs that reach them ("shallow roots are not
// allowed to be updated"). An advertised id never sent is never recorded:
// it would cut the history of every later honest fetch.
func (h *helper) updateShallow(gitDir string, old []plumbing.Hash, resp *packp.UploadPackResponse, ar *packp.AdvRefs, tips []plumbing.Hash) error {
	set := map[plumbing.Hash]bool{}
	for _, id := range old {
		set[id] = true
	}
	changed := false
	switch {
	case h.set.depth > 0 || !h.set.deepenSince.IsZero():
		for _, id := range resp.Shallows {
			changed = changed || !set[id]
			set[id] = true
		}
		for _, id := range resp.Unshallows {
			changed = changed || set[id]
			delete(set, id)
		}
	case len(ar.Shallows) == 0:
	case h.set.cloning:
		have, err := h.existing(ar.Shallows)
		if err != nil {
			return err
		}
		for _, id := range have {
			changed = changed || !set[id]
			set[id] = true
		}
	default:
		reached, err := h.shallowReached(gitDir, old, ar.Shallows, tips)
		if err != nil {
			return err
		}
		if len(reached) > 0 && !h.set.updateShallow {
			return fmt.Errorf("'%s' is shallow at %s, which the fetched refs reach: shallow roots are not allowed to be updated (fetch with --update-shallow)", h.url, reached[0])
		}
		for _, id := range reached {
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

// checkUnshallow refuses an "unshallow" line for a commit that is not
// shallow here, before the pack is read, as git's fetch-pack dies on it.
func checkUnshallow(old []plumbing.Hash, resp *packp.UploadPackResponse) error {
	set := make(map[plumbing.Hash]bool, len(old))
	for _, id := range old {
		set[id] = true
	}
	for _, id := range resp.Unshallows {
		if !set[id] {
			return fmt.Errorf("no shallow found: unshallow %s", id)
		}
	}
	return nil
}

// existing returns the ids that are objects in the repository.
func (h *helper) existing(ids []plumbing.Hash) ([]plumbing.Hash, error) {
	var in bytes.Buffer
	for _, id := range ids {
		in.WriteString(id.String() + "\n")
	}
	out, err := runGit(h.ctx, in.Bytes(), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	var have []plumbing.Hash
	for _, l := range strings.Split(string(out), "\n") {
		if plumbing.IsHash(l) { // "<id> missing" for the others
			have = append(have, plumbing.NewHash(l))
		}
	}
	return have, nil
}

// shallowReached returns the advertised shallow commits, present after
// the pack and not shallow here yet, that the fetched tips reach without
// going through the history of an existing ref or past another of them:
// git's assign_shallow_commits_to_refs, as rev-list with those commits
// made shallow walks it.
func (h *helper) shallowReached(gitDir string, old, advertised, tips []plumbing.Hash) ([]plumbing.Hash, error) {
	oldSet := make(map[plumbing.Hash]bool, len(old))
	for _, id := range old {
		oldSet[id] = true
	}
	have, err := h.existing(advertised)
	if err != nil {
		return nil, err
	}
	candidates := map[plumbing.Hash]bool{}
	var lines bytes.Buffer
	for _, id := range old {
		lines.WriteString(id.String() + "\n")
	}
	for _, id := range have {
		if !oldSet[id] && !candidates[id] {
			candidates[id] = true
			lines.WriteString(id.String() + "\n")
		}
	}
	if len(candidates) == 0 || len(tips) == 0 {
		return nil, nil
	}
	f, err := os.CreateTemp(gitDir, "shallow_")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(lines.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	var in bytes.Buffer
	for _, id := range tips {
		in.WriteString(id.String() + "\n")
	}
	out, err := runGit(h.ctx, in.Bytes(), "--shallow-file", f.Name(), "rev-list", "--stdin", "--not", "--all")
	if err != nil {
		return nil, err
	}
	var reached []plumbing.Hash
	for _, id := range hashes(out) {
		if candidates[id] {
			reached = append(reached, id)
		}
	}
	return reached, nil
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
