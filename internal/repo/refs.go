package repo

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/internal/reftable"
	"github.com/git-durable/git-durable/object"
)

// ErrRefsUnread says that the refs are kept where RefValues does not read
// them itself: reftable, or a linked worktree's own refs.
var ErrRefsUnread = errors.New("refs not in the files backend")

// RefValues returns what every ref of the repository points at (not what
// a tag points at; not HEAD), read without a git process from the files
// backend — packed-refs, then the loose refs under refs/, which win — or
// from reftable's tables (reftable.Values); duplicates are kept. Where the
// refs are kept otherwise (an extension it does not know, a linked
// worktree's own) or a file is not what git writes, it asks git
// for-each-ref instead, and says why in fellBack ("" where it read them
// itself).
func (r *Repo) RefValues(ctx context.Context) (ids []object.ID, fellBack string, err error) {
	if r.reftable() {
		ids, err = reftable.Values(filepath.Join(r.CommonDir, "reftable"))
	} else {
		ids, err = r.readFiles()
	}
	if err == nil {
		return ids, "", nil
	}
	out, gerr := Git(ctx, nil, "for-each-ref", "--format=%(objectname)")
	if gerr != nil {
		return nil, err.Error(), gerr
	}
	for len(out) > 0 {
		var line []byte
		line, out, _ = bytes.Cut(out, []byte("\n"))
		if id, perr := object.ParseID(string(line)); perr == nil {
			ids = append(ids, id)
		}
	}
	return ids, err.Error(), nil
}

// reftable reports whether the repository's refs are all in reftable
// tables it can read: extensions.refStorage says reftable, and the
// repository is no linked worktree (whose own refs are elsewhere).
func (r *Repo) reftable() bool {
	e, ok := r.Config.Get("extensions.refstorage")
	return ok && strings.EqualFold(e.Value, "reftable") && r.CommonDir == r.GitDir
}

// readFiles reads the files backend: packed-refs, then the loose refs.
func (r *Repo) readFiles() ([]object.ID, error) {
	if e, ok := r.Config.Get("extensions.refstorage"); ok && !strings.EqualFold(e.Value, "files") {
		return nil, fmt.Errorf("extensions.refStorage=%s", e.Value)
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); err == nil {
		return nil, ErrRefsUnread
	}
	if r.CommonDir != r.GitDir {
		return nil, ErrRefsUnread // a linked worktree: refs of its own beside the common ones
	}
	refs, err := readPacked(filepath.Join(r.CommonDir, "packed-refs"))
	if err != nil {
		return nil, err
	}
	root := filepath.Join(r.CommonDir, "refs")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return nil
		case strings.HasSuffix(path, ".lock"):
			return nil // git's own, being written: the ref's value is the old file's
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		line := strings.TrimSuffix(string(b), "\n")
		if strings.HasPrefix(line, "ref: ") {
			return nil // a symbolic ref: its target is listed under its own name
		}
		id, err := object.ParseID(line)
		if err != nil {
			return fmt.Errorf("%s: not a ref git writes", path)
		}
		rel, _ := filepath.Rel(r.CommonDir, path)
		refs[filepath.ToSlash(rel)] = id
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	ids := make([]object.ID, 0, len(refs))
	for _, id := range refs {
		ids = append(ids, id)
	}
	return ids, nil
}

// readPacked reads packed-refs: "<id> <name>" lines, a header, and "^<id>"
// lines of peeled tags (skipped). No file is no ref.
func readPacked(path string) (map[string]object.ID, error) {
	refs := map[string]object.ID{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return refs, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		hex, name, ok := strings.Cut(line, " ")
		id, err := object.ParseID(hex)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: not a packed-refs line git writes", path)
		}
		refs[name] = id
	}
	return refs, sc.Err()
}
