package mirror

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/git-durable/git-durable/internal/boot"
	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/proc"
)

// Flag is the argument that selects the runner in git-remote-durable.
const Flag = "--update-mirrors"

// lockName, in each git directory, is the file whose lock an update
// holds: a second runner skips a repository one is updating.
const lockName = "durable-update.flock"

// usage is what -h prints after "usage: ".
const usage = `git-remote-durable --update-mirrors [-j <n>] [--timeout <duration>] <dir>...

Updates every repository at and under each <dir> with git remote update
--prune, first putting right what a crash left that git fails on (stale
lock files, broken refs, a torn packed-refs). One line per repository on
stdout; exit 1 if any failed.

  -j <n>                 repositories updated at once (default 2)
  --timeout <duration>   time limit of one update (default 1h)
  --metrics <file>       write the run's metrics there, in Prometheus' text
                         format (for node_exporter's textfile collector)`

// options are the runner's settings.
type options struct {
	jobs    int
	timeout time.Duration
	metrics string
	roots   []string
}

// parse reads the runner's arguments; a mistake is said on stderr before
// the usage.
func parse(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("git-remote-durable "+Flag, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o options
	fs.IntVar(&o.jobs, "j", 2, "")
	fs.DurationVar(&o.timeout, "timeout", time.Hour, "")
	fs.StringVar(&o.metrics, "metrics", "", "")
	if err := fs.Parse(args); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "error: %v\n", err)
		}
		return o, &cli.UsageError{Usage: usage}
	}
	o.roots = fs.Args()
	switch {
	case len(o.roots) == 0:
		fmt.Fprintln(stderr, "error: name the directories of the mirrors")
	case o.jobs < 1:
		fmt.Fprintln(stderr, "error: -j must be at least 1")
	case o.timeout <= 0:
		fmt.Fprintln(stderr, "error: --timeout must be positive")
	default:
		return o, nil
	}
	return o, &cli.UsageError{Usage: usage}
}

// Run is git-remote-durable --update-mirrors with the arguments that follow
// it.
func Run(ctx context.Context, args []string, env proc.Env) error {
	o, err := parse(args, env.Stderr)
	if err != nil {
		return err
	}
	repos, err := find(o.roots)
	if err != nil {
		return err
	}
	if len(repos) == 0 {
		return fmt.Errorf("no git repository at or under %s", strings.Join(o.roots, ", "))
	}
	booted := boot.Time()
	results := make([]result, len(repos))
	var out sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(o.jobs, len(repos)) {
		wg.Go(func() {
			for i := range next {
				results[i] = update(ctx, repos[i], o.timeout, booted)
				out.Lock()
				fmt.Fprintln(env.Stdout, results[i].line(repos[i].dir))
				out.Unlock()
			}
		})
	}
	for i := range repos {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if o.metrics != "" {
		if err := writeMetrics(o.metrics, repos, results); err != nil {
			fmt.Fprintf(env.Stderr, "error: cannot write the metrics: %v\n", err)
			return &cli.ExitError{Code: 1}
		}
	}
	failed := 0
	for _, r := range results {
		if r.err != nil {
			failed++
		}
	}
	if failed > 0 {
		fmt.Fprintf(env.Stderr, "error: %d of %d repositories failed to update\n", failed, len(repos))
		return &cli.ExitError{Code: 1}
	}
	return nil
}

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
