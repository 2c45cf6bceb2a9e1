package mirror

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/batch"
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

// repairPackedRefs rewrites a torn packed-refs with the lines git can
// read, under git's lock (packed-refs.lock), written out before its rename
// and flushed after it (the batch scheme, or its fallback). It returns
// how many lines it dropped.
func repairPackedRefs(dir string) (int, error) {
	path := filepath.Join(dir, "packed-refs")
	b, err := os.ReadFile(path)
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
	p := batch.New(batch.OS, dir, batch.Options{Method: batch.Batch})
	f, err := p.FS().Create(path+".lock", 0o666)
	if err != nil {
		return 0, fmt.Errorf("cannot repair %s: %w", path, err)
	}
	tx := p.Begin()
	if _, err := f.Write([]byte(strings.Join(keep, ""))); err != nil {
		f.Close()
		os.Remove(path + ".lock")
		return 0, err
	}
	err = tx.Commit(f, path)
	if endErr := tx.End(); err == nil {
		err = endErr
	}
	return dropped, err
}

// removeBrokenRefs removes the loose refs under refs that hold neither an
// object id nor "ref: <target>": what a crash leaves of a ref written
// without a sync (empty, zeros). It returns their names.
func removeBrokenRefs(refs string) ([]string, error) {
	var removed []string
	err := filepath.WalkDir(refs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(d.Name(), ".lock") || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		v := strings.TrimSuffix(string(b), "\n")
		if validID(v) || strings.HasPrefix(v, "ref: refs/") && !strings.ContainsAny(v, "\x00\n") {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		name, _ := filepath.Rel(filepath.Dir(refs), p)
		removed = append(removed, filepath.ToSlash(name))
		return nil
	})
	return removed, err
}

// removeMissingTips deletes the refs whose object the repository does not
// have (git update-ref -d): a crash kept the ref and lost its objects.
func removeMissingTips(ctx context.Context, dir string) ([]string, error) {
	missing, err := missingRefObjects(ctx, dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, r := range missing {
		if _, err := gitOut(ctx, dir, nil, "update-ref", "-d", r.name); err != nil {
			return removed, err
		}
		removed = append(removed, r.name)
	}
	return removed, nil
}
