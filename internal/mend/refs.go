package mend

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/nofollow"
	"github.com/git-durable/git-durable/internal/quarantine"
)

// validID reports whether s is an object id in hex (SHA-1 or SHA-256).
func validID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// validPacked returns the lines of packed-refs content b that git reads,
// and how many it would fail on: the header, "<id> <refname>" lines, each
// with the "^<id>" line of its peeled value after it; a line cut short (no
// newline) or garbled is dropped, and so is the peeled line of a dropped
// ref.
func validPacked(b []byte) (keep []string, dropped int) {
	lines := strings.SplitAfter(string(b), "\n")
	refKept := false
	for i, l := range lines {
		if l == "" {
			continue
		}
		line, ended := strings.CutSuffix(l, "\n")
		ok := ended
		switch {
		case !ok:
		case i == 0 && strings.HasPrefix(line, "# pack-refs with:"):
		case strings.HasPrefix(line, "^"):
			ok = refKept && validID(line[1:])
		default:
			id, name, found := strings.Cut(line, " ")
			ok = found && validID(id) && strings.HasPrefix(name, "refs/")
			refKept = ok
		}
		if ok {
			keep = append(keep, l)
		} else {
			dropped++
			if !strings.HasPrefix(line, "^") {
				refKept = false
			}
		}
	}
	return keep, dropped
}

// tidyPackedRefs writes a torn packed-refs again with the lines git can
// read (writePackedRefs). It returns how many lines it dropped.
func tidyPackedRefs(dir string, o TidyOptions) (int, error) {
	b, err := o.FS.ReadFile(filepath.Join(dir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	keep, dropped := validPacked(b)
	if dropped == 0 {
		return 0, nil
	}
	return dropped, writePackedRefs(dir, keep, o.FS, o.Quarantine)
}

// writePackedRefs writes the packed-refs of the git directory dir again
// with lines (writeLocked).
func writePackedRefs(dir string, lines []string, fsys batch.FS, q *quarantine.Dir) error {
	return writeLocked(filepath.Join(dir, "packed-refs"), []byte(strings.Join(lines, "")), fsys, q)
}

// writeLocked writes the file path of a repository again with content,
// under git's lock (path.lock, which must not exist: another writer's, an
// error that is fs.ErrExist), written out before its rename and flushed
// after it (the batch scheme, or its fallback); the file it replaces is
// kept in the quarantine q before the rename.
func writeLocked(path string, content []byte, fsys batch.FS, q *quarantine.Dir) error {
	p := batch.New(fsys, filepath.Dir(path), batch.Options{Method: batch.Batch})
	f, err := p.FS().Create(path+".lock", 0o666)
	if err != nil {
		return fmt.Errorf("cannot write %s again: %w", path, err)
	}
	tx := p.Begin()
	_, err = f.Write(content)
	if err == nil {
		err = q.Keep(path)
	}
	if err != nil {
		f.Close()
		fsys.Remove(path + ".lock")
		return err
	}
	err = tx.Commit(f, path)
	if endErr := tx.End(); err == nil {
		err = endErr
	}
	return err
}

// withoutRefs returns the lines of packed-refs content b but those of the
// refs names (and their peeled lines), and how many refs it left out.
func withoutRefs(b []byte, names map[string]bool) (keep []string, dropped int) {
	skipping := false
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "^") {
			if !skipping {
				keep = append(keep, l)
			}
			continue
		}
		_, name, _ := strings.Cut(strings.TrimSuffix(l, "\n"), " ")
		skipping = !strings.HasPrefix(l, "#") && names[name]
		if skipping {
			dropped++
		} else {
			keep = append(keep, l)
		}
	}
	return keep, dropped
}

// brokenRefs lists the loose refs under dir/refs that hold neither an
// object id nor "ref: <target>": what a crash leaves of a ref written
// without a sync (empty, zeros). Their names are relative to dir. A link,
// or anything but a regular file, is not read.
func brokenRefs(fsys batch.FS, dir string) ([]string, error) {
	var broken []string
	walk(fsys, filepath.Join(dir, "refs"), func(p string, st fs.FileInfo) {
		if strings.HasSuffix(p, ".lock") || !st.Mode().IsRegular() {
			return
		}
		b, err := fsys.ReadFile(p)
		if err != nil {
			return
		}
		v := strings.TrimSuffix(string(b), "\n")
		if validID(v) || strings.HasPrefix(v, "ref: refs/") && !strings.ContainsAny(v, "\x00\n") {
			return
		}
		name, _ := filepath.Rel(dir, p)
		broken = append(broken, filepath.ToSlash(name))
	})
	return broken, nil
}

// setAsideRefs sets aside the refs missing, whose object is not in the
// repository and did not come from the upstream either: they name nothing
// git can read, and the update fetches what the upstream has under their
// names. A loose ref's file goes to the quarantine first; where the ref is
// also packed, its packed value shows again, and only a ref whose packed
// value is missing too (again asks git) leaves packed-refs, the file
// before kept in the quarantine. In a reftable repository they are left
// to git, and said so. It says what it did.
func (m *mender) setAsideRefs(missing []RefObject, again func() ([]RefObject, error)) ([]string, error) {
	dir := m.r.CommonDir
	var did []string
	if Reftable(dir) {
		for _, r := range missing {
			did = append(did, fmt.Sprintf("%s names %s, which neither this repository nor the upstream has (a reftable ref: git update-ref -d %s)", r.Name, r.ID, r.Name))
		}
		return did, nil
	}
	for _, r := range missing {
		p := filepath.Join(dir, filepath.FromSlash(r.Name))
		b, err := nofollow.ReadFile(p)
		if err == nil && strings.HasPrefix(string(b), "ref: ") {
			continue // a symbolic ref: its target is the one set aside
		}
		if err == nil {
			if err := m.q.Retire(p); err != nil {
				return did, err
			}
		}
		did = append(did, fmt.Sprintf("set aside %s, which names %s: neither this repository nor the upstream has it", r.Name, r.ID))
	}
	if err := m.q.Flush(); err != nil {
		return did, err
	}
	still, err := again()
	if err != nil || len(still) == 0 {
		return did, err
	}
	names := map[string]bool{}
	for _, r := range still {
		names[r.Name] = true
	}
	b, err := nofollow.ReadFile(filepath.Join(dir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return did, nil
	}
	if err != nil {
		return did, err
	}
	if keep, dropped := withoutRefs(b, names); dropped > 0 {
		if err := writePackedRefs(dir, keep, m.t.Store.FS(), m.q); err != nil {
			return did, err
		}
	}
	return did, m.q.Flush()
}
