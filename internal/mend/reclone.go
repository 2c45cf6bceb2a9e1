package mend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/cli"
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
	// is not used: the old repository goes whole into the new one's.
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
	Objects int // objects the new repository holds, as verified
	Carried int // objects only the old repository held, carried over
	// Quarantine is where the old repository went, whole, relative to
	// the git directory.
	Quarantine string
}

// Reclone replaces the repository that the verification f read with a
// fresh clone of its upstream, and never loses it: everything the
// upstream's refs reach is fetched, in this process and durably, into a
// new git directory beside it (.<name>.durable-reclone) that has the old
// one's configuration, hooks, refs, reflogs and alternates; what the old
// one could read and the upstream did not send is carried over (carry:
// refused where only a damaged pack holds it); the new one is verified,
// every file and directory of it flushed, and the two names exchanged in
// one step (renameat2); once that is durable the old repository goes
// whole into the new one's quarantine. A crash before the exchange is
// durable leaves the old repository where it was (and the scratch
// directory, set aside by the next reclone); after it, the new one.
func Reclone(ctx context.Context, f *Findings, o RecloneOptions) (out Recloned, err error) {
	old := f.repo
	if old == nil {
		return out, errors.New("a reclone needs the verification's reading of the repository")
	}
	if err := recloneable(old.GitDir, old.CommonDir, old.Config.Has("extensions.partialclone")); err != nil {
		return out, err
	}
	if o.URL == "" {
		return out, errors.New("no remote to clone from")
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	dir := old.GitDir
	scratch := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+ScratchSuffix)
	q := quarantine.New(nil, dir, time.Now())
	if exists(scratch) {
		// A reclone's crash left it: before its exchange the new one,
		// after it the old one; either way set aside, not deleted.
		if err := q.Adopt(scratch, "reclone-left-"+filepath.Base(dir)); err != nil {
			return out, err
		}
		if err := q.Flush(); err != nil {
			return out, err
		}
	}
	swapped := false
	defer func() {
		if !swapped {
			os.RemoveAll(scratch) // never a repository git read: ours alone
		}
	}()
	if err := copyGitDir(dir, scratch, o.Skip); err != nil {
		return out, err
	}
	if out.Carried, err = fillClone(ctx, f, scratch, o); err != nil {
		return out, err
	}
	nf, err := Verify(ctx, o.In(scratch), VerifyOptions{Reserve: cli.ReserveMemory})
	if err != nil {
		return out, fmt.Errorf("the new clone: %v", err)
	}
	if !nf.Sound() {
		return out, fmt.Errorf("the new clone is not sound: %d objects broken or missing", nf.Broken())
	}
	out.Objects = nf.Objects()
	if err := flushTree(scratch); err != nil {
		return out, err
	}
	if o.Hold != nil {
		if err := o.Hold(scratch); err != nil {
			return out, err
		}
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	if err := exchange(scratch, dir); err != nil {
		return out, err
	}
	swapped = true
	quarantine.Forget(dir) // the name leads to another directory now
	if err := batch.OS.FlushDir(filepath.Dir(dir)); err != nil {
		return out, err
	}
	// The old repository, now under the scratch name, is kept whole.
	if err := q.Adopt(scratch, "repository"); err != nil {
		return out, fmt.Errorf("the old repository was replaced and is at %s: %v", scratch, err)
	}
	out.Quarantine = q.Retired()[len(q.Retired())-1]
	return out, q.Flush()
}

// recloneable refuses what a reclone cannot replace: a linked work tree's
// git directory (the common one holds its objects), a partial clone (a
// whole fetch would fill in what it left out on purpose), a system where
// directories cannot be exchanged in one step.
func recloneable(gitDir, commonDir string, partial bool) error {
	switch {
	case filepath.Clean(gitDir) != filepath.Clean(commonDir):
		return errors.New("a linked work tree's git directory is not recloned: reclone its repository")
	case partial:
		return errors.New("a partial clone is not recloned: a whole clone would bring what it leaves out")
	}
	return canExchange()
}

// fillClone fetches everything the upstream's refs reach into the git
// directory scratch, durably (fetchWhole), and carries over what only the
// repository of f held. It returns how many objects it carried over.
func fillClone(ctx context.Context, f *Findings, scratch string, o RecloneOptions) (int, error) {
	r, err := openRepo(ctx, o.In(scratch))
	if err != nil {
		return 0, fmt.Errorf("the new clone: %v", err)
	}
	t, err := objstore.Open(r, o.Getenv, io.Discard, true)
	if err != nil {
		return 0, err
	}
	defer t.Close()
	m := &mender{ctx: ctx, git: o.In(scratch), r: r, t: t}
	src, err := m.dial(o.Options)
	if err != nil {
		return 0, err
	}
	defer src.close()
	whole, err := m.fetchWhole(src.rem, src.f)
	if err != nil {
		return 0, src.say(err)
	}
	fetched, closeFetched := openFetched([]string{whole}, r.Format)
	defer closeFetched()
	return carry(f, r.ObjectDir, fetched.has)
}

// exists reports whether path is there (an error other than its absence
// counts as there: nothing is made over it).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
