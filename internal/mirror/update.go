package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-durable/git-durable/internal/mask"
)

// result is how the update of one repository went.
type result struct {
	start    time.Time
	took     time.Duration
	skipped  bool
	repaired []string
	err      error
	// notDurable says why the update, though it succeeded, did not write
	// durably ("" where it did); notes are what else its line says (the
	// helper's reading of the settings, a statistics file it could not
	// write).
	notDurable string
	notes      []string
	// converted says which remotes --convert put durable:: before (or
	// would have, in a dry run).
	converted []string
	dry       bool
	// check is what --verify found, fixed how many objects its repair
	// put right.
	check *checked
	fixed int
	// helper adds up the helper's session lines of the update, sessions
	// counts them.
	helper   session
	sessions int
}

// line is the log line of r for the repository dir: "ok" only for an
// update that wrote durably.
func (r result) line(dir string) string {
	head := r.start.UTC().Format(time.RFC3339) + " " + quotePath(dir)
	var notes []string
	if len(r.repaired) > 0 {
		notes = append(notes, "repaired: "+strings.Join(r.repaired, "; "))
	}
	if len(r.converted) > 0 && !r.dry {
		notes = append(notes, "converted "+strings.Join(r.converted, "; "))
	}
	notes = append(notes, r.notes...)
	tail := ""
	if len(notes) > 0 {
		tail = " (" + mask.Printable(mask.OneLine(strings.Join(notes, "; "))) + ")"
	}
	switch {
	case r.dry && r.err == nil && len(r.converted) == 0:
		return head + " dry run: every remote fetches through durable::"
	case r.dry && r.err == nil:
		return head + " dry run: would convert " + mask.Printable(strings.Join(r.converted, "; "))
	case r.skipped:
		return head + " skipped: another update of it runs"
	case r.err != nil:
		return fmt.Sprintf("%s failed %.1fs: %s%s", head, r.took.Seconds(), mask.Printable(mask.OneLine(r.err.Error())), tail)
	case r.notDurable != "":
		return fmt.Sprintf("%s warning %.1fs: updated, not durable: %s%s", head, r.took.Seconds(), r.notDurable, tail)
	}
	return fmt.Sprintf("%s ok %.1fs%s", head, r.took.Seconds(), tail)
}

// statsName, in each git directory, is where the helper's session lines of
// the update running there go, under the repository's lock: what a killed
// runner's git wrote there is read and passed on by the next update.
const statsName = "durable-update.stats"

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
	f, err := openLock(filepath.Join(t.dir, lockName), t.dir)
	if err != nil {
		r.err = err
		return r
	}
	defer f.Close()
	if r.skipped, r.err = tryLock(f); r.skipped || r.err != nil {
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if o.verify {
		o.verifyOne(ctx, t.dir, f, &r)
		return r
	}
	stats := filepath.Join(t.dir, statsName)
	remotes, err := o.prepare(ctx, t.dir, stats, booted, &r)
	if err != nil {
		r.err = err
		return r
	}
	r.err = o.fetch(ctx, t.dir, f, stats)
	o.conclude(&r, remotes, stats)
	return r
}

// prepare readies the repository dir, which the runner holds, for its
// update: it passes on what a killed runner's update left in stats, puts
// right what a crash left (repair), and lists the remotes, after putting
// durable:: before their URLs with --convert.
func (o *options) prepare(ctx context.Context, dir, stats string, booted time.Time, r *result) ([]remoteURL, error) {
	if note := keepStats(stats); note != "" {
		r.notes = append(r.notes, note)
	}
	var err error
	if r.repaired, err = repair(ctx, dir, stale(booted, o.timeout)); err != nil {
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

// conclude reads what the helper's sessions said of the update (stats),
// passes it on, and judges whether the update, with the remotes, wrote
// durably.
func (o *options) conclude(r *result, remotes []remoteURL, stats string) {
	r.helper, r.sessions = readSessions(stats)
	if note := keepStats(stats); note != "" {
		r.notes = append(r.notes, note)
	}
	if r.helper.Settings != "" {
		r.notes = append(r.notes, "settings: "+r.helper.Settings)
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
	cmd.Env = append(cmd.Env, "GIT_TERMINAL_PROMPT=0", "GIT_REMOTE_DURABLE_STATS="+stats)
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
	case err != nil:
		return errors.New(cause(errb.String(), err))
	}
	return nil
}

// stale is the time before which git's lock files in a repository the
// runner holds are left over: those from before the boot, and those older
// than an update may last.
func stale(booted time.Time, timeout time.Duration) time.Time {
	return later(booted, time.Now().Add(-timeout))
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// cause is the line of git's stderr that names why it failed: its first
// "fatal:" line, else its first "error:" line that is more than git
// remote update's "could not fetch <remote>", else its last line, else
// err.
func cause(stderr string, err error) string {
	var firstErr string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "fatal: ") {
			return l
		}
		if firstErr == "" && strings.HasPrefix(l, "error: ") && !strings.HasPrefix(l, "error: could not fetch ") {
			firstErr = l
		}
	}
	if firstErr != "" {
		return firstErr
	}
	return lastLine(stderr, err)
}

// keepStats passes the helper's lines in the file path, left by an
// update, on to the statistics file the runner was given
// (GIT_REMOTE_DURABLE_STATS, an absolute path), if any — but the session
// lines of fetches that found nothing to do and repaired nothing, so that
// a mirror's log grows with its news, not with the runs — and removes it.
// It returns what stood in the way of writing them, "" if nothing did.
func keepStats(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		os.Remove(path)
		return ""
	}
	to := os.Getenv("GIT_REMOTE_DURABLE_STATS")
	var keep []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) > 0 && !quiet(l) {
			keep = append(keep, l...)
		}
	}
	var note string
	if to != "" && len(keep) > 0 {
		if !filepath.IsAbs(to) {
			note = "statistics not written: GIT_REMOTE_DURABLE_STATS is not an absolute path"
		} else if err := appendTo(to, keep); err != nil {
			note = "statistics not written: " + err.Error()
		}
	}
	os.Remove(path)
	return note
}

// appendTo appends b to the file path, created where missing.
func appendTo(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
