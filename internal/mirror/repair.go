package mirror

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-durable/git-durable/batch"
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
	out, err := gitOut(ctx, dir, nil, "for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil {
		return nil, err
	}
	var ids bytes.Buffer
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		id, name, _ := strings.Cut(sc.Text(), " ")
		ids.WriteString(id + "\n")
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, nil
	}
	check, err := gitOut(ctx, dir, ids.Bytes(), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	var removed []string
	for i, l := range strings.Split(strings.TrimSuffix(string(check), "\n"), "\n") {
		if i < len(names) && strings.HasSuffix(l, " missing") {
			if _, err := gitOut(ctx, dir, nil, "update-ref", "-d", names[i]); err != nil {
				return removed, err
			}
			removed = append(removed, names[i])
		}
	}
	return removed, nil
}

// gitOut runs git in the git directory dir (gitIn) and returns its
// output; a failure carries git's last line.
func gitOut(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := gitIn(ctx, dir, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %s", args[0], lastLine(errb.String(), err))
	}
	return out.Bytes(), nil
}

// lastLine is the last line of git's stderr, or err where it printed none.
func lastLine(stderr string, err error) string {
	s := strings.TrimSpace(stderr)
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return err.Error()
	}
	return s
}

// plural is one or many, by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
