package mend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/quarantine"
)

// ScratchSuffix ends the name of the directory a reclone builds the new
// repository in, beside the one it replaces (.<name><ScratchSuffix>): no
// repository of the runner's, whatever it holds.
const ScratchSuffix = ".durable-reclone"

// RecloneOptions configure a Reclone.
type RecloneOptions struct {
	// Options name the upstream (URL) and how it is reached; Quarantine
	// (nil: the repository's) takes the old repository, whole, once the
	// new one has its name.
	Options
	// In runs git in the git directory dir.
	In func(dir string) Git
	// Skip are the names of files at the top of the git directory that
	// are not carried over (the runner's lock and statistics).
	Skip []string
	// Hold, when set, is called with the new repository once it is
	// complete, before it takes the old one's name: the runner takes its
	// lock there, so that the lock holds whichever repository the name
	// leads to.
	Hold func(dir string) error
}

// Recloned is what a reclone did.
type Recloned struct {
	Objects int // objects the fetch of everything brought, each checked as it came
	// Swapped says that the new repository took the name, also where
	// what came after failed (its flush, setting the old one aside).
	Swapped bool
	Carried int // objects only the old repository held, carried over
	// Quarantine is where the old repository went, whole, relative to
	// the git directory.
	Quarantine string
}

// Reclone replaces the repository that the verification f read with a
// fresh clone of its upstream, and never loses it: everything the
// upstream's refs reach is fetched, in this process and durably, each
// object hashed and checked as it comes (as git's index-pack checks a
// clone's), into a new git directory beside it (.<name>.durable-reclone)
// that has the old one's configuration, hooks, refs, reflogs and
// alternates; what the old one could read and the upstream did not send
// is carried over (carry); every ref's object must then be there. Every
// file and directory of it is flushed, and the two names are exchanged in
// one step (renameat2); once that is durable the old repository goes
// whole into the new one's quarantine. A crash before the exchange is
// durable leaves the old repository where it was (and the scratch
// directory, set aside by the next reclone); after it, the new one. A
// reclone refused before the exchange (NotSwapped) leaves the repository
// as it was.
func Reclone(ctx context.Context, f *Findings, o RecloneOptions) (out Recloned, err error) {
	old := f.repo
	if old == nil {
		return out, errors.New("a reclone needs the verification's reading of the repository")
	}
	if err := recloneable(old.GitDir, old.CommonDir, old.ObjectDir, old.Config.Has("extensions.partialclone")); err != nil {
		return out, &NotSwapped{err}
	}
	if o.URL == "" {
		return out, errors.New("no remote to clone from")
	}
	o.URL = upstreamURL(o.URL, old.GitDir) // the old repository's: not read from beside it
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	dir := old.GitDir
	q := o.Quarantine
	if q == nil {
		q = quarantine.For(dir)
	}
	defer func() {
		// Refused, or failed, with nothing touched: the mend in place may
		// still put it right; not where the upstream failed (it would
		// again) or the run was stopped.
		var refused *NotSwapped
		var far *upstreamError
		if err != nil && !out.Swapped && ctx.Err() == nil && !errors.As(err, &refused) && !errors.As(err, &far) {
			err = &NotSwapped{err}
		}
	}()
	if _, err := setAsideScratch(dir, q); err != nil {
		return out, err
	}
	scratch := scratchOf(dir)
	if err := os.Mkdir(scratch, 0o700); err != nil {
		return out, err // nothing of ours there: nothing to remove
	}
	defer func() {
		if !out.Swapped {
			os.RemoveAll(scratch) // never a repository git read: ours alone
		}
	}()
	before, err := refState(ctx, o.In(dir), dir)
	if err != nil {
		return out, err
	}
	if err := copyGitDir(dir, scratch, o.Skip); err != nil {
		return out, err
	}
	clear(f.layouts) // not held while everything is fetched (fetch, in source.go)
	if out.Objects, out.Carried, err = fillClone(ctx, f, scratch, o); err != nil {
		return out, err
	}
	// Every object was hashed and checked as it came (as git's
	// index-pack checks a clone's), or read right by the verification f
	// (carry): what is left is that every ref names one the clone has.
	missing, err := MissingRefObjects(ctx, o.In(scratch))
	if err != nil {
		return out, fmt.Errorf("the new clone: %v", err)
	}
	if len(missing) > 0 {
		return out, &NotSwapped{fmt.Errorf("%s names %s, which neither the upstream sent nor the repository could read", missing[0].Name, missing[0].ID)}
	}
	if err := ownLike(dir, scratch); err != nil {
		return out, err
	}
	if err := flushTree(scratch); err != nil {
		return out, err
	}
	if err := batch.OS.FlushDir(filepath.Dir(dir)); err != nil {
		return out, err // the scratch's name: durable before it is exchanged
	}
	if o.Hold != nil {
		if err := o.Hold(scratch); err != nil {
			return out, err
		}
	}
	// The runner's lock keeps runners out, not every git: a ref another
	// process wrote since the copy would be left behind.
	if after, err := refState(ctx, o.In(dir), dir); err != nil || after != before {
		return out, &NotSwapped{errors.New("its refs changed while it was cloned again: another process writes in it")}
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	if err := exchange(scratch, dir); err != nil {
		return out, err
	}
	out.Swapped = true
	q.Reset() // the name leads to another directory now
	if err := batch.OS.FlushDir(filepath.Dir(dir)); err != nil {
		return out, err
	}
	// The old repository, now under the scratch name, is kept whole.
	if err := q.Adopt(scratch, "repository"); err != nil {
		return out, fmt.Errorf("the old repository is at %s: %v", scratch, err)
	}
	retired := q.Retired()
	out.Quarantine = retired[len(retired)-1]
	return out, q.Flush()
}

// refState is what the refs of the repository git runs in (its git
// directory dir) say: every ref's value, and HEAD.
func refState(ctx context.Context, git Git, dir string) (string, error) {
	refs, err := git(ctx, nil, "for-each-ref", "--format=%(objectname) %(refname) %(symref)")
	if err != nil {
		return "", err
	}
	head, err := os.ReadFile(filepath.Join(dir, "HEAD"))
	return string(refs) + string(head), err
}

// upstreamError is a failure of the upstream's, in its words: a mend in
// place would meet it again.
type upstreamError struct{ error }

// Unwrap returns the failure.
func (e *upstreamError) Unwrap() error { return e.error }

// recloneable refuses what a reclone cannot replace: a linked work tree's
// git directory (the common one holds its objects), objects kept
// elsewhere (GIT_OBJECT_DIRECTORY, or objects/ or objects/pack a symbolic
// link: the clone would not land there), a partial clone (a whole fetch
// would fill in what it left out on purpose), a system where directories
// cannot be exchanged in one step.
func recloneable(gitDir, commonDir, objectDir string, partial bool) error {
	switch {
	case filepath.Clean(gitDir) != filepath.Clean(commonDir):
		return errors.New("a linked work tree's git directory is not recloned: reclone its repository")
	case filepath.Clean(objectDir) != filepath.Join(gitDir, "objects"):
		return fmt.Errorf("its objects are kept in %s, not in the repository: not recloned", objectDir)
	case partial:
		return errors.New("a partial clone is not recloned: a whole clone would bring what it leaves out")
	case exists(filepath.Join(gitDir, "modules")):
		return errors.New("it holds its submodules' repositories (modules/): not recloned")
	}
	for _, d := range []string{"objects", filepath.Join("objects", "pack")} {
		if st, err := os.Lstat(filepath.Join(gitDir, d)); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: not recloned", filepath.ToSlash(d))
		}
	}
	return canExchange()
}

// fillClone fetches everything the upstream's refs reach into the git
// directory scratch, durably (fetchWhole), and carries over what only the
// repository of f held. It returns how many objects came, and how many
// were carried over.
func fillClone(ctx context.Context, f *Findings, scratch string, o RecloneOptions) (came, carried int, err error) {
	r, err := openRepo(ctx, o.In(scratch))
	if err != nil {
		return 0, 0, fmt.Errorf("the new clone: %v", err)
	}
	t, err := objstore.Open(r, o.Getenv, io.Discard, true)
	if err != nil {
		return 0, 0, err
	}
	defer t.Close()
	m := &mender{ctx: ctx, git: o.In(scratch), r: r, t: t}
	src, err := m.dial(o.Options)
	if err != nil {
		return 0, 0, &upstreamError{err}
	}
	defer src.close()
	whole, err := m.fetchWhole(src.rem, src.f)
	if err != nil {
		return 0, 0, &upstreamError{src.say(err)}
	}
	fetched, closeFetched := openFetched([]string{whole}, r.Format)
	defer closeFetched()
	for _, p := range fetched {
		came += p.idx.Count()
	}
	carried, err = carry(f, r.ObjectDir, fetched.has)
	return came, carried, err
}

// NotSwapped is a reclone refused before the exchange, with nothing of
// the repository touched: a mend in place may still put it right.
type NotSwapped struct{ Why error }

// Error says why.
func (e *NotSwapped) Error() string { return e.Why.Error() }

// Unwrap returns why.
func (e *NotSwapped) Unwrap() error { return e.Why }

// WholeDue reports whether a mend of what f found would fetch everything
// again from the start: the broken copies hold more than 1/wholeShare of
// the packs' bytes (a reclone's worth).
func WholeDue(f *Findings) bool {
	if f.repo == nil {
		return false
	}
	_, _, byPack := brokenCopies(f.Report)
	m := &mender{r: f.repo, layouts: f.laidOut()}
	return m.measure(byPack).wholeWanted()
}

// scratchOf is where a reclone of the git directory dir builds the new
// repository: beside it, on the same filesystem.
func scratchOf(dir string) string {
	return filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+ScratchSuffix)
}

// setAsideScratch sets the scratch directory of a reclone of dir that a
// crash left (before the exchange the new repository, after it the old
// one: either way not deleted) aside in q, the repository's quarantine,
// and reports whether there was one.
func setAsideScratch(dir string, q *quarantine.Dir) (bool, error) {
	scratch := scratchOf(dir)
	if !exists(scratch) {
		return false, nil
	}
	if err := q.Adopt(scratch, "reclone-left-"+filepath.Base(dir)); err != nil {
		return false, err
	}
	return true, q.Flush()
}

// exists reports whether path is there (an error other than its absence
// counts as there: nothing is made over it).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
