package mend

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/nofollow"
	"github.com/git-durable/git-durable/internal/quarantine"
)

// TidyOptions say what Tidy may take for stale.
type TidyOptions struct {
	// Booted is when the running boot began: a lock file last written
	// before it is stale (no process of this boot holds it). The zero
	// time where it is not known.
	Booted time.Time
	// Cutoff is the time before which a lock file is stale if no live
	// process works in the repository: an update may last as long. Where
	// the system cannot tell which processes work there, only Booted
	// decides.
	Cutoff time.Time
	// Quarantine takes what Tidy sets aside.
	Quarantine *quarantine.Dir
	// FS is the filesystem; nil means batch.OS, whose files Tidy reads
	// without following a symbolic link (internal/nofollow).
	FS batch.FS
	// Busy, when set, replaces the look at the live processes that work
	// in the repository (busy).
	Busy func(dir string) (pids []int, known bool)
}

// Tidied is what Tidy set aside or rewrote.
type Tidied struct {
	// Locks are the stale lock files set aside, relative to the git
	// directory; Held are lock files older than the cutoff left while
	// the live processes Busy work in the repository, for the update to
	// fail on in git's words.
	Locks, Held []string
	Busy        []int
	// TornLines is how many torn lines of packed-refs were left out of
	// the packed-refs written again (the torn one set aside).
	TornLines int
	// BrokenRefs are the loose refs holding neither an id nor a symbolic
	// ref (what a crash leaves of a ref written without a sync), set
	// aside: the update fetches them again.
	BrokenRefs []string
	// TornTables are the tables of a reftable stack that tables.list named
	// and git could not read (missing, empty, torn): tables.list was
	// written again without them, and they were set aside.
	TornTables []string
	// Scratch says that the scratch directory of a reclone a crash
	// stopped, beside the git directory, was set aside in its quarantine.
	Scratch bool
}

// Tidy puts right, in the git directory dir, what a crash during an
// earlier update can leave there that git fails on before it starts the
// helper: a lock file no process holds any more (git: "Unable to create
// '….lock': File exists"), an empty or garbled loose ref ("bad object"), a
// torn packed-refs ("unterminated line in packed-refs"). Each is set aside
// in the quarantine, never deleted, and the quarantine flushed. A ref whose
// object is missing is left as it is: the update's fetch wants it back. In
// a reftable repository no file under refs/ is touched (refs/heads there
// is git's stub); its tables.list.lock follows the rule of every lock, and
// a table git cannot read is taken out of the stack (tidyReftable). The
// scratch directory of a reclone a crash stopped, beside the git
// directory, is set aside in the quarantine too (setAsideScratch).
func Tidy(dir string, o TidyOptions) (Tidied, error) {
	if o.FS == nil {
		o.FS = noFollow{batch.OS}
	}
	if o.Busy == nil {
		o.Busy = busy
	}
	var t Tidied
	table := reftableIn(o.FS, dir)
	var err error
	if t.Scratch, err = setAsideScratch(dir, o.Quarantine); err != nil {
		return t, err
	}
	if t.Locks, t.Held, t.Busy, err = staleLocks(dir, table, o); err != nil {
		return t, err
	}
	for _, l := range t.Locks {
		if err := o.Quarantine.Retire(filepath.Join(dir, filepath.FromSlash(l))); err != nil {
			return t, err
		}
	}
	if table {
		if t.TornTables, err = tidyReftable(dir, o); err != nil {
			return t, err
		}
	} else {
		if t.TornLines, err = tidyPackedRefs(dir, o); err != nil {
			return t, err
		}
		if t.BrokenRefs, err = brokenRefs(o.FS, dir); err != nil {
			return t, err
		}
		for _, r := range t.BrokenRefs {
			if err := o.Quarantine.Retire(filepath.Join(dir, filepath.FromSlash(r))); err != nil {
				return t, err
			}
		}
	}
	return t, o.Quarantine.Flush()
}

// Reftable reports whether the repository of the git directory dir keeps
// its refs in reftable: a reftable directory, or the extension that says
// so. Its refs/heads is then a stub git requires, not a ref.
func Reftable(dir string) bool { return reftableIn(noFollow{batch.OS}, dir) }

// reftableIn is Reftable on fsys.
func reftableIn(fsys batch.FS, dir string) bool {
	if st, err := fsys.Lstat(filepath.Join(dir, "reftable")); err == nil && st.IsDir() {
		return true
	}
	b, err := fsys.ReadFile(filepath.Join(dir, "config"))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(strings.ToLower(string(b)), "\n") {
		k, v, ok := strings.Cut(strings.ReplaceAll(l, " ", ""), "=")
		if ok && strings.TrimSpace(k) == "refstorage" && strings.Trim(strings.TrimSpace(v), `"`) == "reftable" {
			return true
		}
	}
	return false
}

// staleLocks lists git's lock files in dir (HEAD.lock, config.lock,
// packed-refs.lock, shallow.lock, index.lock …), under refs (files
// backend) or reftable's tables.list.lock, and sorts them: stale — last
// written before the boot, or before the cutoff while no live process
// works in the repository (busy) — or maybe held by a live one. Names are
// relative to dir.
func staleLocks(dir string, table bool, o TidyOptions) (stale, held []string, pids []int, err error) {
	var locks []string
	add := func(p string, st fs.FileInfo) {
		if st.Mode().IsRegular() && strings.HasSuffix(p, ".lock") {
			locks = append(locks, p)
		}
	}
	names, err := o.FS.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, n := range names {
		if st, err := o.FS.Lstat(filepath.Join(dir, n)); err == nil {
			add(filepath.Join(dir, n), st)
		}
	}
	sub := "refs"
	if table {
		sub = "reftable"
	}
	walk(o.FS, filepath.Join(dir, sub), add)
	var live *inUse
	for _, p := range locks {
		st, err := o.FS.Lstat(p)
		if err != nil || !st.Mode().IsRegular() || !st.ModTime().Before(later(o.Booted, o.Cutoff)) {
			continue
		}
		name, _ := filepath.Rel(dir, p)
		name = filepath.ToSlash(name)
		if st.ModTime().Before(o.Booted) {
			stale = append(stale, name)
			continue
		}
		if live == nil {
			live = &inUse{}
			live.pids, live.known = o.Busy(dir)
		}
		if live.known && len(live.pids) == 0 {
			stale = append(stale, name)
		} else {
			held, pids = append(held, name), live.pids
		}
	}
	return stale, held, pids, nil
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// walk calls fn for every file at and under dir on fsys, with what Lstat
// says of it; a directory that is a link is not entered.
func walk(fsys batch.FS, dir string, fn func(path string, st fs.FileInfo)) {
	names, err := fsys.ReadDir(dir)
	if err != nil {
		return
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		st, err := fsys.Lstat(p)
		switch {
		case err != nil:
		case st.IsDir():
			walk(fsys, p, fn)
		default:
			fn(p, st)
		}
	}
}

// noFollow is an FS whose ReadFile never reads through a symbolic link.
type noFollow struct{ batch.FS }

// ReadFile reads the regular file name itself (nofollow.ReadFile).
func (noFollow) ReadFile(name string) ([]byte, error) { return nofollow.ReadFile(name) }

// inUse is what Busy said: the live processes that work in the
// repository, and whether that could be told.
type inUse struct {
	known bool
	pids  []int
}
