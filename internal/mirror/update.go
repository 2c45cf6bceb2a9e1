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
	// helper adds up the helper's session lines of the update, sessions
	// counts them.
	helper   session
	sessions int
}

// line is the log line of r for the repository dir.
func (r result) line(dir string) string {
	head := r.start.UTC().Format(time.RFC3339) + " " + quotePath(dir)
	switch {
	case r.skipped:
		return head + " skipped: another update of it runs"
	case r.err != nil:
		return fmt.Sprintf("%s failed %.1fs: %s", head, r.took.Seconds(), mask.Printable(mask.OneLine(r.err.Error())))
	case len(r.repaired) > 0:
		return fmt.Sprintf("%s ok %.1fs (repaired: %s)", head, r.took.Seconds(), strings.Join(r.repaired, "; "))
	}
	return fmt.Sprintf("%s ok %.1fs", head, r.took.Seconds())
}

// update repairs and updates the repository t, under its lock, once git
// takes it as the runner's user's (checkOwner); a repository refused
// (find, checkOwner, openLock) is left untouched.
func update(ctx context.Context, t target, timeout time.Duration, booted time.Time) (r result) {
	r.start = time.Now()
	defer func() { r.took = time.Since(r.start) }()
	dir := t.dir
	if r.err = t.refused; r.err != nil {
		return r
	}
	if r.err = checkOwner(ctx, dir); r.err != nil {
		return r
	}
	f, err := openLock(filepath.Join(dir, lockName), dir)
	if err != nil {
		r.err = err
		return r
	}
	defer f.Close()
	held, err := tryLock(f)
	if held || err != nil {
		r.skipped, r.err = held, err
		return r
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if r.repaired, r.err = repair(ctx, dir, booted); r.err != nil {
		return r
	}
	stats, err := os.CreateTemp("", "git-durable-update-")
	if err != nil {
		r.err = err
		return r
	}
	stats.Close()
	defer os.Remove(stats.Name())
	cmd := gitIn(ctx, dir, "remote", "update", "--prune")
	cmd.Env = append(cmd.Env, "GIT_TERMINAL_PROMPT=0", "GIT_REMOTE_DURABLE_STATS="+stats.Name())
	// The lock goes with git: a runner killed before its git ends leaves
	// the repository locked until git ends too.
	cmd.ExtraFiles = []*os.File{f}
	defer func() {
		r.helper, r.sessions = readSessions(stats.Name())
		keepStats(stats.Name(), os.Getenv("GIT_REMOTE_DURABLE_STATS"))
	}()
	ownGroup(cmd)
	cmd.Cancel = func() error { return stop(cmd.Process) }
	cmd.WaitDelay = 10 * time.Second
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err = cmd.Start(); err == nil {
		err = cmd.Wait()
		if ctx.Err() != nil {
			kill(cmd.Process) // what did not stop when asked
		}
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		r.err = fmt.Errorf("timed out after %s", timeout)
	case err != nil:
		r.err = errors.New(lastLine(errb.String(), err))
	}
	return r
}

// keepStats appends the helper's lines of an update, in the file from,
// to the statistics file the runner was given (GIT_REMOTE_DURABLE_STATS,
// an absolute path), if any.
func keepStats(from, to string) {
	if to == "" || !filepath.IsAbs(to) {
		return
	}
	b, err := os.ReadFile(from)
	if err != nil || len(b) == 0 {
		return
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(b)
}
