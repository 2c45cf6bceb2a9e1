package mirror

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/remote"
	"github.com/git-durable/git-durable/internal/repo"
)

// CheckFlag is the argument that selects the check in git-remote-durable.
const CheckFlag = "--check"

// checkUsage is what -h prints after "usage: ".
const checkUsage = `git-remote-durable --check [<dir>]

Says, without fetching, what a fetch into the repository at <dir> (the
current directory by default) would do: which helper git runs for its
durable:: remotes, how objects, kept packs and refs are synced there, on
which filesystem and why, the unpack limit, and whether the loose objects
were checked during this boot. Exit 1 where durability would be off.`

// Check is git-remote-durable --check with the arguments that follow it.
func Check(ctx context.Context, args []string, env proc.Env) error {
	if len(args) > 1 || len(args) == 1 && strings.HasPrefix(args[0], "-") {
		if len(args) == 1 && args[0] != "-h" {
			fmt.Fprintf(env.Stderr, "error: unknown option '%s'\n", args[0])
		}
		return &cli.UsageError{Usage: checkUsage}
	}
	if len(args) == 1 {
		if err := os.Chdir(args[0]); err != nil {
			return fmt.Errorf("cannot change to '%s': %v", args[0], err)
		}
	}
	r, err := repo.Discover(ctx)
	if err != nil {
		return err
	}
	var problems []string
	say := func(what, format string, a ...any) {
		fmt.Fprintf(env.Stdout, "%-13s %s\n", what, fmt.Sprintf(format, a...))
	}
	say("repository", "%s", r.GitDir)
	problems = append(problems, checkHelper(ctx, r, say)...)
	more, err := checkSync(r, env, say)
	if err != nil {
		return err
	}
	problems = append(problems, more...)
	if len(problems) > 0 {
		say("durable", "no: %s", strings.Join(problems, "; "))
		return &cli.ExitError{Code: 1}
	}
	say("durable", "yes")
	return nil
}

// checkHelper says which remotes fetch through durable:: and which helper
// git runs for them, and returns what stands in the way.
func checkHelper(ctx context.Context, r *repo.Repo, say func(what, format string, a ...any)) []string {
	var problems []string
	remotes := durableRemotes(r.Config)
	if len(remotes) == 0 {
		problems = append(problems, "no remote fetches through durable::")
		say("remotes", "none fetches through durable:: (git remote set-url <name> durable::<url>)")
	}
	for _, rm := range remotes {
		say("remote", "%s", rm)
	}
	if helper, why := helperGitRuns(ctx); helper == "" {
		problems = append(problems, why)
		say("helper", "%s", why)
	} else {
		say("helper", "%s", helper)
	}
	return problems
}

// checkSync says how a fetch would sync objects, packs and refs, on which
// filesystem, with which unpack limit, and whether the crash check of this
// boot ran; it returns what stands in the way of durability.
func checkSync(r *repo.Repo, env proc.Env, say func(what, format string, a ...any)) ([]string, error) {
	var problems []string
	set, err := r.Config.DurableSettings(env.Getenv)
	if err != nil {
		return nil, err
	}
	loose := set.Policy(batch.OS, r.ObjectDir).Stats()
	packs := set.PackPolicy(batch.OS, r.ObjectDir).Stats()
	say("filesystem", "%s", describeFS(loose))
	say("objects", "%s", describePath(loose))
	say("kept packs", "%s", describePath(packs))
	if set.Notice != "" {
		say("settings", "%s", set.Notice)
	}
	for _, st := range []batch.Stats{loose, packs} {
		if st.Path == batch.PathNone || st.Path == batch.PathWriteoutOnly {
			problems = append(problems, fmt.Sprintf("objects are not durable (%s)", st.Path))
			break
		}
	}
	if loose.Path == batch.PathNone {
		say("refs", "not synced by the helper (loose objects are not)")
	} else {
		say("refs", "HEAD, config, refs and shallow made durable as each fetch ends")
	}
	limit, err := remote.UnpackLimit(r.Config)
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		say("unpack limit", "0: every fetched pack is kept")
	} else {
		say("unpack limit", "%d: fetches of fewer objects are written as loose objects, larger ones kept as packs", limit)
	}
	if swept, broken := remote.SweptThisBoot(r.ObjectDir, r.Format); swept {
		say("crash check", "every loose object was checked during this boot; %d left broken", len(broken))
	} else {
		say("crash check", "the next fetch reads every loose object (none checked during this boot)")
	}
	return problems, nil
}

// durableRemotes lists the remotes of c that fetch through the helper, as
// "<name>: <url>".
func durableRemotes(c repo.Config) []string {
	var out []string
	for _, e := range c {
		name, ok := strings.CutPrefix(e.Key, "remote.")
		if !ok || !strings.HasSuffix(name, ".url") {
			continue
		}
		if strings.HasPrefix(e.Value, "durable::") || strings.HasPrefix(e.Value, "durable://") {
			out = append(out, strings.TrimSuffix(name, ".url")+": "+mask.Printable(e.Value))
		}
	}
	return out
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

// describeFS says which filesystem the policy found, and why it syncs as
// it does there.
func describeFS(st batch.Stats) string {
	name := st.Filesystem
	if name == "" {
		name = "not looked at (nothing to flush)"
	}
	if st.Reason != "" {
		return st.Reason
	}
	return name
}

// describePath says what a path does.
func describePath(st batch.Stats) string {
	switch st.Path {
	case batch.PathBatch:
		return "batch: a writeout of each file before its rename, one flush after the last"
	case batch.PathFallback:
		return "fallback-fsync: a full flush of each file and of each directory that received a name (batch is not sound here)"
	case batch.PathFsync:
		return "fsync: a full flush of each file and of each directory that received a name"
	case batch.PathWriteoutOnly:
		return "writeout-only: written out, never flushed (not durable)"
	}
	return "none: no sync at all (core.fsync turns it off)"
}
