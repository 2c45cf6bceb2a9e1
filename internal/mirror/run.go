package mirror

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/git-durable/git-durable/internal/boot"
	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/proc"
)

// Flag is the argument that selects the runner in git-remote-durable.
const Flag = "--update-mirrors"

// lockName, in each git directory, is the file whose lock an update
// holds: a second runner skips a repository one is updating.
const lockName = "durable-update.flock"

// usage is what -h prints after "usage: ".
const usage = `git-remote-durable --update-mirrors [<options>] <dir>...

Updates every repository at and under each <dir> with git remote update
--prune, first putting right what a crash left that git fails on (stale
lock files, broken refs, a torn packed-refs). One line per repository on
stdout: "ok" where the update wrote durably (every remote fetches through
durable:: with syncing on), "warning" where it updated without, "failed",
or "skipped" (another update holds it). A repository git would refuse for
its owner (safe.directory) is not touched. Exit 1 if any failed.

  -j <n>                 repositories updated at once (default 2)
  --timeout <duration>   time limit of one update (default 1h); git's lock
                         files older than that, where no process works in
                         the repository, are set aside before it
  --quarantine-days <n>  days what a run sets aside in a repository's
                         durable-quarantine/ is kept (default 14; 0 empties
                         it now)
  --require-durable      fail an update that did not write durably
  --convert              first put durable:: before the URL of every remote
                         that fetches without it
  --dry-run              with --convert: only say what it would convert, and
                         update nothing
  --metrics <file>       write the run's metrics there, in Prometheus' text
                         format (for node_exporter's textfile collector)
  --metrics-label <text> the runner label of the run's series (default: the
                         <dir>s), one per runner writing in one directory
  --verify               instead of updating, check every object as git fsck
                         --full does (git-remote-durable --verify <dir>...)
  --rate <bytes>         with --verify: read packs at most that fast (k, m, g)`

// verifyUsage is what --verify -h prints after "usage: ".
const verifyUsage = `git-remote-durable --verify [<options>] <dir>...

Checks every repository at and under each <dir> as git fsck --full does for
what a disk, a restore or an unsynced writer can break: every pack's
checksum and index, each packed object's CRC, inflation and hash, every
loose object, every ref's object, and the refs themselves (a torn
packed-refs, broken loose refs, reftable tables git cannot read). What is
broken or missing is fetched again from the repository's upstream and
written durably; where that would cost more than a reclone, a fresh clone
is built beside the repository and swapped in. What is replaced is set
aside in the repository's durable-quarantine/, never deleted. One line
per repository on stdout: "ok" with what was verified, mended or
recloned, "failed" naming what is left broken, or "skipped" (an update
holds it). Exit 0 when every repository is sound or mended, 1 if any
failed, 129 for a wrong option.

  -j <n>                 repositories verified at once (default 2)
  --rate <bytes>         read packs at most that fast, with k, m or g
                         (default: as fast as they come; the shipped unit
                         uses 100m)
  --timeout <duration>   time limit of one repository (default 1h); the
                         upstream's answer is given up after a quarter of it
  --quarantine-days <n>  days what a run sets aside is kept (default 14; 0
                         empties it now)
  --reclone              reclone every repository, damaged or not: clone it
                         afresh from its upstream beside it, with what only
                         it holds, and swap it in (Linux); the old one is
                         set aside whole in the new one's quarantine
  --metrics <file>       write the git_durable_verify_* series there, in
                         Prometheus' text format
  --metrics-label <text> the runner label of the run's series (default: the
                         <dir>s)`

// options are the runner's settings.
type options struct {
	jobs    int
	timeout time.Duration
	// keep is how long a repository's quarantine keeps what a run set
	// aside (--quarantine-days).
	keep    time.Duration
	metrics string
	// label names the run in the metrics (its roots by default), so that
	// the files of several runners in one directory never collide.
	label string
	// requireDurable fails an update that did not write durably.
	requireDurable bool
	// convert puts durable:: before the URL of every remote that fetches
	// without it; with dryRun, the run only says what it would convert.
	convert, dryRun bool
	// verify checks each repository's objects instead of updating it (and
	// fetches again by id what it finds broken), reading packs at rate
	// bytes a second at most (0: as fast as they come).
	verify bool
	rate   int64
	// reclone replaces each repository, once verified, with a fresh
	// clone of its upstream swapped in (mend.Reclone), instead of
	// mending it in place.
	reclone bool
	roots   []string
	// stderr takes progress lines, where terminal says it is one.
	stderr   io.Writer
	terminal bool
	// unreadable counts the directories under the roots passed over.
	unreadable int
}

// parse reads the runner's arguments; a mistake is said on stderr before
// the usage.
func parse(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("git-remote-durable "+Flag, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o options
	fs.IntVar(&o.jobs, "j", 2, "")
	fs.DurationVar(&o.timeout, "timeout", time.Hour, "")
	days := fs.Int("quarantine-days", 14, "")
	fs.StringVar(&o.metrics, "metrics", "", "")
	fs.StringVar(&o.label, "metrics-label", "", "")
	fs.BoolVar(&o.requireDurable, "require-durable", false, "")
	fs.BoolVar(&o.convert, "convert", false, "")
	fs.BoolVar(&o.dryRun, "dry-run", false, "")
	fs.BoolVar(&o.verify, "verify", false, "")
	fs.BoolVar(&o.reclone, "reclone", false, "")
	fs.Func("rate", "", func(v string) (err error) { o.rate, err = parseRate(v); return err })
	help := usage
	if slices.Contains(args, VerifyFlag) {
		help = verifyUsage
	}
	if err := fs.Parse(args); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "error: %v\n", err)
		}
		return o, &cli.UsageError{Usage: help}
	}
	o.roots = fs.Args()
	o.keep = time.Duration(*days) * 24 * time.Hour
	if o.label == "" {
		o.label = strings.Join(o.roots, " ")
	}
	switch {
	case len(o.roots) == 0:
		fmt.Fprintln(stderr, "error: name the directories of the mirrors")
	case o.jobs < 1:
		fmt.Fprintln(stderr, "error: -j must be at least 1")
	case o.timeout <= 0:
		fmt.Fprintln(stderr, "error: --timeout must be positive")
	case *days < 0:
		fmt.Fprintln(stderr, "error: --quarantine-days must be 0 or more")
	case o.dryRun && !o.convert:
		fmt.Fprintln(stderr, "error: --dry-run goes with --convert")
	case o.reclone && !o.verify:
		fmt.Fprintln(stderr, "error: --reclone goes with --verify")
	case o.verify && (o.convert || o.requireDurable):
		fmt.Fprintln(stderr, "error: --verify updates nothing: --convert and --require-durable go with updates")
	default:
		return o, nil
	}
	return o, &cli.UsageError{Usage: help}
}

// Run is git-remote-durable --update-mirrors with the arguments that follow
// it.
func Run(ctx context.Context, args []string, env proc.Env) error {
	o, err := parse(args, env.Stderr)
	if err != nil {
		return err
	}
	o.stderr, o.terminal = env.Stderr, env.IsTerminal
	repos, unreadable, err := find(o.roots)
	if err != nil {
		return err
	}
	passOver(env.Stderr, unreadable)
	o.unreadable = len(unreadable)
	if len(repos) == 0 {
		return fmt.Errorf("no git repository at or under %s", strings.Join(o.roots, ", "))
	}
	booted := boot.Time()
	results := make([]result, len(repos))
	ran := make([]bool, len(repos))
	var out sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(o.jobs, len(repos)) {
		wg.Go(func() {
			for i := range next {
				if ctx.Err() != nil {
					continue // stopped: no update starts
				}
				results[i] = o.update(ctx, repos[i], booted)
				out.Lock()
				ran[i] = true
				fmt.Fprintln(env.Stdout, results[i].line(repos[i].dir))
				out.Unlock()
			}
		})
	}
	for i := range repos {
		if ctx.Err() != nil {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		// Stopped (SIGTERM, SIGINT): the updates in flight were stopped
		// as --timeout stops them, and said; the metrics say what ran.
		var done []target
		var res []result
		for i := range repos {
			if ran[i] {
				done, res = append(done, repos[i]), append(res, results[i])
			}
		}
		o.finish(done, res, env.Stderr)
		return ctx.Err()
	}
	return o.finish(repos, results, env.Stderr)
}

// finish writes the run's metrics, if asked, and says how many
// repositories failed: exit 1 if any did.
func (o *options) finish(repos []target, results []result, stderr io.Writer) error {
	fam, what := updates, "update"
	if o.verify {
		fam, what = verifications, "verify"
	}
	if o.metrics != "" && !o.dryRun {
		if err := writeMetrics(o.metrics, o.label, fam, repos, results, o.unreadable); err != nil {
			fmt.Fprintf(stderr, "error: cannot write the metrics: %v\n", err)
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
		fmt.Fprintf(stderr, "error: %d of %d repositories failed to %s\n", failed, len(repos), what)
		return &cli.ExitError{Code: 1}
	}
	return nil
}
