package mirror

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
)

// CheckFlag is the argument that selects the check in git-remote-durable.
const CheckFlag = "--check"

// checkUsage is what -h prints after "usage: ".
const checkUsage = `git-remote-durable --check [<dir>...]

Says, without fetching, what a fetch into the repository at <dir> (the
current directory by default) would do: which helper git runs for its
durable:: remotes, how objects, kept packs and refs are synced there, on
which filesystem and why, the unpack limit, and whether the loose objects
were checked during this boot. Given directories that are not one
repository, it finds every repository at and under them as
--update-mirrors does and says one line each. Exit 1 where durability
would be off.`

// Check is git-remote-durable --check with the arguments that follow it.
func Check(ctx context.Context, args []string, env proc.Env) error {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			if a != "-h" && a != "--help" {
				fmt.Fprintf(env.Stderr, "error: unknown option '%s'\n", a)
			}
			return &cli.UsageError{Usage: checkUsage}
		}
	}
	if len(args) == 0 || len(args) == 1 && (isRepo(args[0]) || isRepo(filepath.Join(args[0], ".git"))) {
		if len(args) == 1 {
			if err := os.Chdir(args[0]); err != nil {
				return fmt.Errorf("cannot change to '%s': %v", args[0], err)
			}
		}
		return checkOne(ctx, env)
	}
	return checkTree(ctx, args, env)
}

// checkOne says, one aspect a line, what a fetch into the repository of
// the current directory would do.
func checkOne(ctx context.Context, env proc.Env) error {
	r, err := repo.Discover(ctx)
	if err != nil {
		return err
	}
	say := func(what, format string, a ...any) {
		fmt.Fprintf(env.Stdout, "%-13s %s\n", what, fmt.Sprintf(format, a...))
	}
	say("repository", "%s", r.GitDir)
	helper, why := helperGitRuns(ctx)
	problems, err := checkRepo(ctx, r, helper, why, env, say)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		say("durable", "no: %s", strings.Join(problems, "; "))
		return &cli.ExitError{Code: 1}
	}
	say("durable", "yes")
	return nil
}

// checkTree says, one line a repository, whether a fetch into each
// repository at and under dirs would be durable, and why not; a
// repository git would refuse for its owner is not read.
func checkTree(ctx context.Context, dirs []string, env proc.Env) error {
	repos, unreadable, err := find(dirs)
	if err != nil {
		return err
	}
	passOver(env.Stderr, unreadable)
	if len(repos) == 0 {
		return fmt.Errorf("no git repository at or under %s", strings.Join(dirs, ", "))
	}
	helper, why := helperGitRuns(ctx)
	quiet := func(string, string, ...any) {}
	bad := 0
	for _, t := range repos {
		var problems []string
		err := t.refused
		if err == nil {
			err = checkOwner(ctx, t.dir)
		}
		if err == nil {
			err = os.Chdir(t.dir)
		}
		var r *repo.Repo
		if err == nil {
			r, err = repo.Discover(ctx)
		}
		if err == nil {
			problems, err = checkRepo(ctx, r, helper, why, env, quiet)
		}
		if err != nil {
			problems = []string{mask.Printable(mask.OneLine(err.Error()))}
		}
		if len(problems) == 0 {
			fmt.Fprintf(env.Stdout, "%s durable: yes\n", quotePath(t.dir))
			continue
		}
		bad++
		fmt.Fprintf(env.Stdout, "%s durable: no: %s\n", quotePath(t.dir), strings.Join(problems, "; "))
	}
	if bad > 0 {
		fmt.Fprintf(env.Stderr, "error: %d of %d repositories would not fetch durably\n", bad, len(repos))
		return &cli.ExitError{Code: 1}
	}
	return nil
}

// checkRepo says what a fetch into r would do — the URLs of its remotes,
// the helper git runs (helper, or why there is none), the syncs — and
// returns what stands in the way of durability: as the runner judges an
// update (notDurable), every remote must fetch through durable::.
func checkRepo(ctx context.Context, r *repo.Repo, helper, why string, env proc.Env, say func(what, format string, a ...any)) ([]string, error) {
	var problems []string
	remotes, err := remotesOf(ctx, r.GitDir)
	if err != nil {
		return nil, err
	}
	if len(remotes) == 0 {
		problems = append(problems, "no remote to fetch from")
		say("remotes", "none")
	}
	for _, rm := range remotes {
		filter := ""
		if rm.filter != "" {
			filter = " [" + rm.filter + "]"
		}
		say("remote", "%s: %s%s", rm.name, mask.Printable(rm.url), mask.Printable(filter))
		if !rm.durable() {
			problems = append(problems, fmt.Sprintf("remote '%s' fetches without durable:: (git remote set-url %s durable::<url>, or --update-mirrors --convert)", rm.name, rm.name))
		}
	}
	if helper == "" {
		problems = append(problems, why)
		say("helper", "%s", why)
	} else {
		say("helper", "%s", helper)
	}
	more, err := checkSync(r, env, say)
	return append(problems, more...), err
}

// helperGitRuns returns the git-remote-durable git would run (it looks in
// its exec-path, then on PATH) with its version, or "" and why none.
func helperGitRuns(ctx context.Context) (string, string) {
	path := ""
	if out, err := exec.CommandContext(ctx, "git", "--exec-path").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "git-remote-durable")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			path = p
		}
	}
	if path == "" {
		p, err := exec.LookPath("git-remote-durable")
		if err != nil {
			return "", "git finds no git-remote-durable, neither in its exec-path (git --exec-path) nor on PATH"
		}
		path = p
	}
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Sprintf("%s does not run: %v", path, err)
	}
	return fmt.Sprintf("%s (%s)", path, strings.TrimSpace(string(out))), ""
}
