package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/mask"
)

// settleSlack is how long before the session began a ref may have been
// written and still count as written by this git command: filesystem
// timestamps come from a clock of a coarser grain (Linux's ticks of up to
// 10 ms).
const settleSlack = 100 * time.Millisecond

// repoFiles are the files around the refs that settle makes durable where
// they changed: HEAD (of the work tree), config and packed-refs (of the
// common directory), and shallow (which the helper writes, see
// writeShallow).
func repoFiles(gitDir, common string) []string {
	return []string{filepath.Join(gitDir, "HEAD"), filepath.Join(common, "config"), filepath.Join(common, "packed-refs"),
		filepath.Join(common, "shallow")}
}

// fileState is what tells that git replaced a file: it writes a new one
// and renames it into place.
type fileState struct {
	ino   uint64
	mtime time.Time
	size  int64
}

// repoState is what settle compares the repository with to see what git
// changed.
type repoState struct {
	files map[string]fileState // of repoFiles
	// refDirs are the modification times of the directories under refs.
	refDirs map[string]time.Time
}

// snapshot records, at the session's first command, the state of the
// repository (before).
func (h *helper) snapshot() {
	if h.before != nil {
		return
	}
	h.before = &repoState{files: map[string]fileState{}}
	r, err := h.lookRepository()
	if err != nil {
		return
	}
	// How the settings are read, where git reads them otherwise: once a
	// session, on one line (git prints its own words about a value it does
	// not know, as every git command of the fetch reads them).
	if set, err := r.Config.DurableSettings(h.env.Getenv); err == nil && set.Notice != "" {
		fmt.Fprintf(h.errw, "warning: durable: %s\n", set.Notice)
	}
	for _, f := range repoFiles(r.GitDir, r.CommonDir) {
		if st, ok := stateOf(f); ok {
			h.before.files[f] = st
		}
	}
	h.before.refDirs = map[string]time.Time{}
	for _, d := range refHomes(r.CommonDir) {
		walkDirs(d, func(dir string, mtime time.Time) { h.before.refDirs[dir] = mtime })
	}
}

// refHomes are the directories git keeps refs in: refs/ (the files
// backend, and reftable's stub), and reftable/ (its tables and
// tables.list, where the repository has one).
func refHomes(common string) []string {
	return []string{filepath.Join(common, "refs"), filepath.Join(common, "reftable")}
}

// walkDirs calls fn with every directory at and under dir and its
// modification time.
func walkDirs(dir string, fn func(dir string, mtime time.Time)) {
	st, err := os.Stat(dir)
	if err != nil {
		return
	}
	fn(dir, st.ModTime())
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() {
			walkDirs(filepath.Join(dir, e.Name()), fn)
		}
	}
}

// stateOf returns the state of the regular file name.
func stateOf(name string) (fileState, bool) {
	st, err := os.Lstat(name)
	if err != nil || !st.Mode().IsRegular() {
		return fileState{}, false
	}
	return fileState{ino: inode(st), mtime: st.ModTime(), size: st.Size()}, true
}

// settle makes durable, as the session ends, what git wrote in the
// repository around the fetch: the refs and packed-refs it updated or
// deleted after the helper's answer, and HEAD and the config it wrote
// before it started the helper (a clone's, and a remote's settings).
// git ends the session only once they are written (transport_disconnect
// comes after the refs, HEAD, and a clone's branch settings), and waits for
// the helper to exit, so when git returns they are durable too: each is
// written out where it lies, and one flush commits their names (see
// batch.Transaction.Adopt), with the loose objects' method. git never
// syncs them by default, and a crash after it returned could leave an
// empty HEAD, a config of no bytes or a torn packed-refs: a repository
// git does not open. Nothing is done where nothing changed, nor where git
// went away without ending the session (it failed: a clone removes the
// repository then).
func (h *helper) settle() {
	if h.before == nil || !h.ended {
		return // git asked for nothing, or failed and went away
	}
	r, err := h.repository()
	if err != nil {
		return // not in a repository (git ls-remote), or git said why already
	}
	run, err := h.begin(r)
	if err != nil {
		return
	}
	defer run.End()
	st := run.Policy.Stats()
	if h.line.Path == "" {
		h.line.Stats = st // no batch: the session's line still says how it would sync
	}
	if st.Path == batch.PathNone {
		return
	}
	tx := run.Policy.Begin()
	n, err := h.adoptChanged(tx, r.GitDir, r.CommonDir)
	if endErr := tx.End(); err == nil {
		err = endErr
	}
	st = run.Policy.Stats()
	h.line.Stats = plus(h.line.Stats, st)
	if err != nil {
		fmt.Fprintf(h.errw, "error: cannot make the refs durable: %s\n", mask.Printable(mask.OneLine(err.Error())))
		return
	}
	h.line.Settled = n
}

// adoptChanged adopts into tx the files git wrote during the session, and
// the directories whose entries changed, and returns how many files.
func (h *helper) adoptChanged(tx *batch.Transaction, gitDir, common string) (int, error) {
	if common == "" {
		common = gitDir
	}
	since := h.began.Add(-settleSlack)
	n := 0
	adopt := func(name string, since time.Time) error {
		st, err := os.Lstat(name)
		if err != nil || !st.Mode().IsRegular() || st.ModTime().Before(since) {
			return nil // gone, or not git's file, or older than since
		}
		if err := tx.Adopt(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		n++
		return nil
	}
	// A clone's HEAD and config were written just before git started the
	// helper, however long that took.
	for _, f := range repoFiles(gitDir, common) {
		st, ok := stateOf(f)
		old, had := h.before.files[f]
		if had && !ok {
			tx.AdoptDir(filepath.Dir(f)) // removed (shallow, after --unshallow)
		}
		if !ok || had && old == st && !h.set.cloning {
			continue
		}
		if err := tx.Adopt(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	// git writes a ref through a lock file renamed into place, and
	// deletes one by removing it, which changes its directory: the
	// directories that changed during the session are made durable, with
	// their parents (they may be new), and so is each file in them
	// written since it began. Lock files are another writer's, in flight.
	// reftable writes each new table under a temporary name renamed into
	// place, then tables.list through its lock: the tables ("0x….ref")
	// come before tables.list in a directory's order, and one flush makes
	// them durable with the names. A clone's first tables were written
	// before git started the helper: all of them are taken then.
	var err error
	table := filepath.Join(common, "reftable")
	for _, home := range refHomes(common) {
		walkDirs(home, func(dir string, mtime time.Time) {
			if old, ok := h.before.refDirs[dir]; err != nil || ok && old.Equal(mtime) {
				return
			}
			tx.AdoptDir(dir)
			tx.AdoptDir(filepath.Dir(dir))
			entries, rerr := os.ReadDir(dir)
			if rerr != nil {
				return
			}
			from := since
			if dir == table && h.set.cloning {
				from = time.Time{} // a clone's tables: of any age
			}
			for _, e := range entries {
				if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".lock") {
					if err = adopt(filepath.Join(dir, e.Name()), from); err != nil {
						return
					}
				}
			}
		})
	}
	return n, err
}
