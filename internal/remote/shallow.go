package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/object"
)

// readShallow returns the commits listed in $GIT_DIR/shallow.
func readShallow(gitDir string) ([]object.ID, error) {
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
func (h *helper) updateShallow(gitDir string, old []object.ID, pack *upstream.Pack, tips []object.ID) (batch.Stats, error) {
	set := map[object.ID]bool{}
	for _, id := range old {
		set[id] = true
	}
	changed := false
	switch {
	case pack.Deepened:
		for _, id := range pack.Shallow {
			changed = changed || !set[id]
			set[id] = true
		}
		for _, id := range pack.Unshallow {
			changed = changed || set[id]
			delete(set, id)
		}
	case len(pack.Theirs) == 0:
	case h.set.cloning:
		have, err := h.existing(pack.Theirs)
		if err != nil {
			return batch.Stats{}, err
		}
		for _, id := range have {
			changed = changed || !set[id]
			set[id] = true
		}
	default:
		reached, err := h.shallowReached(gitDir, old, pack.Theirs, tips)
		if err != nil {
			return batch.Stats{}, err
		}
		if len(reached) > 0 && !h.set.updateShallow {
			return batch.Stats{}, fmt.Errorf("'%s' is shallow at %s, which the fetched refs reach: shallow roots are not allowed to be updated (fetch with --update-shallow)", h.url, reached[0])
		}
		for _, id := range reached {
			changed = changed || !set[id]
			set[id] = true
		}
	}
	if !changed {
		return batch.Stats{}, nil
	}
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id.String())
	}
	sort.Strings(ids)
	return h.writeShallow(gitDir, ids)
}

// checkUnshallow refuses an "unshallow" line for a commit that is not
// shallow here, before the pack is read, as git's fetch-pack dies on it.
func checkUnshallow(old, unshallow []object.ID) error {
	set := make(map[object.ID]bool, len(old))
	for _, id := range old {
		set[id] = true
	}
	for _, id := range unshallow {
		if !set[id] {
			return fmt.Errorf("no shallow found: unshallow %s", id)
		}
	}
	return nil
}

// existing returns the ids that are objects in the repository.
func (h *helper) existing(ids []object.ID) ([]object.ID, error) {
	var in bytes.Buffer
	for _, id := range ids {
		in.WriteString(id.String() + "\n")
	}
	out, err := repo.Git(h.ctx, in.Bytes(), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	var have []object.ID
	for _, l := range strings.Split(string(out), "\n") {
		if id, err := object.ParseID(l); err == nil { // "<id> missing" for the others
			have = append(have, id)
		}
	}
	return have, nil
}

// shallowReached returns the advertised shallow commits, present after
// the pack and not shallow here yet, that the fetched tips reach without
// going through the history of an existing ref or past another of them:
// git's assign_shallow_commits_to_refs, as rev-list with those commits
// made shallow walks it.
func (h *helper) shallowReached(gitDir string, old, advertised, tips []object.ID) ([]object.ID, error) {
	oldSet := make(map[object.ID]bool, len(old))
	for _, id := range old {
		oldSet[id] = true
	}
	have, err := h.existing(advertised)
	if err != nil {
		return nil, err
	}
	candidates := map[object.ID]bool{}
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
	out, err := repo.Git(h.ctx, in.Bytes(), "--shallow-file", f.Name(), "rev-list", "--stdin", "--not", "--all")
	if err != nil {
		return nil, err
	}
	var reached []object.ID
	for _, id := range hashes(out) {
		if candidates[id] {
			reached = append(reached, id)
		}
	}
	return reached, nil
}

// writeShallow replaces $GIT_DIR/shallow through shallow.lock, as git does,
// with the repository's policy for loose objects: written out before its
// rename (fully synced, where the policy syncs each object so); nothing
// under core.fsync=none. No commits removes the file. The flush that
// makes the new name durable is the session's last (settle), with the
// refs git writes from the same fetch: when git returns, both are. It
// returns what the syncs were.
func (h *helper) writeShallow(gitDir string, ids []string) (batch.Stats, error) {
	r, err := h.repository()
	if err != nil {
		return batch.Stats{}, err
	}
	run, err := h.begin(r)
	if err != nil {
		return batch.Stats{}, err
	}
	defer run.End()
	h.shallowed = len(ids) > 0
	err = writeShallowTx(run.Policy.Begin(), run.Policy.FS(), gitDir, ids)
	return run.Policy.Stats(), err
}

func writeShallowTx(tx *batch.Transaction, fsys batch.FS, gitDir string, ids []string) error {
	path := filepath.Join(gitDir, "shallow")
	lock := path + ".lock"
	if len(ids) == 0 {
		err := tx.Remove(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	f, err := fsys.Create(lock, 0o666)
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
	if _, err := io.WriteString(f, b.String()); err != nil {
		f.Close()
		fsys.Remove(lock)
		return err
	}
	tx.Written(f)
	return tx.Commit(f, path)
}
