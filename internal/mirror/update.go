package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/mend"
	"github.com/git-durable/git-durable/internal/quarantine"
	"github.com/git-durable/git-durable/internal/report"
)

// update repairs and updates the repository t, under its lock, once git
// takes it as the runner's user's (checkOwner); a repository refused
// (find, checkOwner, openLock) is left untouched.
func (o *options) update(ctx context.Context, t target, booted time.Time) (r result) {
	r.start = time.Now()
	defer func() { r.took = time.Since(r.start) }()
	if r.err = t.refused; r.err == nil {
		r.err = checkOwner(ctx, t.dir)
	}
	if r.err != nil {
		return r
	}
	if o.dryRun {
		r.dry = true
		var rs []remoteURL
		if rs, r.err = remotesOf(ctx, t.dir); r.err == nil {
			r.converted, r.err = convert(ctx, t.dir, rs, true)
		}
		return r
	}
	f, busy, err := takeLock(t.dir)
	if r.skipped, r.err = busy, err; busy || err != nil {
		return r
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	defer r.release() // after the quarantine's upkeep: a reclone's lock
	defer o.keepQuarantine(t.dir, &r)
	if o.verify {
		if r.err = o.verifyRefs(ctx, t.dir, f, booted, &r); r.err == nil {
			o.verifyOne(ctx, t.dir, &r)
		}
		return r
	}
	stats := filepath.Join(t.dir, statsName)
	remotes, err := o.prepare(ctx, t.dir, stats, booted, &r)
	if err != nil {
		r.err = err
		return r
	}
	r.err = o.fetch(ctx, t.dir, f, stats)
	if r.err != nil && objectTrouble(r.err) {
		r.err = o.mendAndRetry(ctx, t.dir, f, stats, remotes, &r)
	}
	o.conclude(&r, remotes, stats)
	return r
}

// prepare readies the repository dir, which the runner holds, for its
// update: it passes on what a killed runner's update left in stats, puts
// right what a crash left (repair), and lists the remotes, after putting
// durable:: before their URLs with --convert.
func (o *options) prepare(ctx context.Context, dir, stats string, booted time.Time, r *result) ([]remoteURL, error) {
	if note := keepStats(stats, nil); note != "" {
		r.notes = append(r.notes, note)
	}
	if err := checkAlternates(dir); err != nil {
		return nil, err
	}
	if _, err := o.tidy(dir, booted, r); err != nil {
		return nil, err
	}
	remotes, err := remotesOf(ctx, dir)
	if err == nil && o.convert {
		if r.converted, err = convert(ctx, dir, remotes, false); err == nil && len(r.converted) > 0 {
			remotes, err = remotesOf(ctx, dir)
		}
	}
	return remotes, err
}

// tidy puts right, in the repository dir, what a crash left that git
// fails on (mend.Tidy), and says on r's line what it set aside.
func (o *options) tidy(dir string, booted time.Time, r *result) (mend.Tidied, error) {
	q := quarantine.For(dir)
	t, err := mend.Tidy(dir, mend.TidyOptions{Booted: booted, Cutoff: time.Now().Add(-o.timeout), Quarantine: q})
	r.tidied = describeTidied(t, q)
	return t, err
}

// conclude reads what the helper's sessions said of the update (stats),
// passes it on, and judges whether the update, with the remotes, wrote
// durably.
func (o *options) conclude(r *result, remotes []remoteURL, stats string) {
	r.helper, r.sessions = readSessions(stats)
	if r.helper.Settings != "" {
		// Before a note of the runner's own: a line too long is cut.
		r.notes = append(r.notes, "settings: "+r.helper.Settings)
	}
	if note := keepStats(stats, r.err); note != "" {
		r.notes = append(r.notes, note)
	}
	if r.err == nil {
		r.notDurable = notDurable(remotes, r.helper)
	}
	if r.notDurable != "" && o.requireDurable {
		r.err, r.notDurable = errors.New("not durable: "+r.notDurable), ""
	}
}

// fetch runs git remote update --prune in the repository dir, which it
// holds by lock, with the helper's session lines going to stats, and
// returns why it failed: the time limit, or the cause git names.
func (o *options) fetch(ctx context.Context, dir string, lock *os.File, stats string) error {
	cmd := gitIn(ctx, dir, "remote", "update", "--prune")
	cmd.Env = append(cmd.Env, "GIT_TERMINAL_PROMPT=0", report.StatsEnv+"="+stats)
	// The lock goes with git: a runner killed before its git ends leaves
	// the repository locked until git ends too.
	cmd.ExtraFiles = []*os.File{lock}
	ownGroup(cmd)
	cmd.Cancel = func() error { return stop(cmd.Process) }
	cmd.WaitDelay = 10 * time.Second
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
		if ctx.Err() != nil {
			kill(cmd.Process) // what did not stop when asked
		}
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("timed out after %s", o.timeout)
	case errors.Is(ctx.Err(), context.Canceled):
		return errors.New("stopped: the runner was asked to stop (SIGTERM or SIGINT)")
	case err != nil:
		return errors.New(cause(errb.String(), err))
	}
	return nil
}

// objectTrouble reports whether git's reason for a failed update, err, is
// an object the repository lacks or cannot read: a ref whose object is
// missing, a loose object a crash broke, a pack cut short.
func objectTrouble(err error) bool {
	msg := err.Error()
	for _, s := range []string{"bad object", "missing object", "did not send all necessary objects", "is corrupt",
		"does not match index", "unable to read", "failed to read", "invalid sha1 pointer", "packfile", "is empty"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return objectNotFound.MatchString(msg)
}

// objectNotFound is git's line for an object it cannot find ("fatal:
// object <id> not found"), not a repository's ("repository '…' not
// found").
var objectNotFound = regexp.MustCompile(`object [0-9a-f]{40}(?:[0-9a-f]{24})? not found`)

// mendAndRetry puts right, in the repository dir whose update failed on an
// object it lacks or cannot read, what it failed on, and runs the update
// once more each time: first the refs whose object is missing — each
// object fetched again by id, a ref whose object the upstream does not
// have either set aside (mend.Refs) — also where there was none, since the
// failed fetch may have put right what it failed on (a pack cut short,
// written again under its name while git had it open); then, where it
// still fails on an object, the verification's own mend of every object
// (mend.Verify, mend.Mend), at once rather than at the next --verify.
// What it cannot put right it leaves as it is, and the update's failure
// then says what to run.
func (o *options) mendAndRetry(ctx context.Context, dir string, lock *os.File, stats string, remotes []remoteURL, r *result) error {
	failed := r.err
	opts := o.mendOptions(dir, remotes)
	m, found, err := mend.Refs(ctx, inRepo(dir), opts)
	if found {
		r.mended = append(r.mended, mendedWhat(m)...)
	}
	if err == nil && len(m.Missing) == 0 {
		failed = o.fetch(ctx, dir, lock, stats)
	}
	if failed != nil && objectTrouble(failed) && ctx.Err() == nil {
		if f, err := mend.Verify(ctx, inRepo(dir), mend.VerifyOptions{Rate: o.rate, Reserve: cli.ReserveMemory}); err == nil && !f.Sound() {
			r.check = f
			m, err := mend.Mend(ctx, inRepo(dir), f, opts)
			r.mended = append(r.mended, append([]string{describe(f)}, mendedWhat(m)...)...)
			writeVerdict(dir, f, m, 0, err)
			if err == nil && leftBroken(m) == nil {
				failed = o.fetch(ctx, dir, lock, stats)
			}
		}
	}
	if failed != nil && objectTrouble(failed) {
		return fmt.Errorf("%v (to find and mend what is broken: git-remote-durable --verify %s)", failed, quotePath(dir))
	}
	return failed
}

// keepQuarantine ends a run in the repository dir, which the runner holds:
// it notes what the run set aside (r.retired), removes from the quarantine
// what is older than --quarantine-days, and notes what it still holds.
func (o *options) keepQuarantine(dir string, r *result) {
	r.retired = len(quarantine.For(dir).Retired())
	if n, err := quarantine.Expire(nil, dir, time.Now().Add(-o.keep)); err != nil {
		r.notes = append(r.notes, "cannot empty "+quarantine.Name+": "+err.Error())
	} else if n > 0 {
		r.notes = append(r.notes, fmt.Sprintf("removed %d %s of %s older than %d days", n, plural(n, "folder", "folders"), quarantine.Name, int(o.keep.Hours()/24)))
	}
	_, r.quarantined, _ = quarantine.Folders(nil, dir)
}

// takeLock opens the runner's lock of the repository dir and takes it:
// busy where another run holds it, or where the file the name led to is
// no longer there once taken (a reclone swapped another repository in,
// and holds that one's). f is open only where the lock was taken.
func takeLock(dir string) (f *os.File, busy bool, err error) {
	path := filepath.Join(dir, lockName)
	if f, err = openLock(path, dir); err != nil {
		return nil, false, err
	}
	if busy, err = tryLock(f); busy || err != nil || !stillThere(f, path) {
		f.Close()
		return nil, busy || err == nil, err
	}
	return f, false, nil
}

// stillThere reports whether the lock f is still the file at path: a
// reclone that swapped a new repository in since f was opened holds that
// one's lock, and f locks the one it set aside.
func stillThere(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}
