package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/repo"
)

// gitIn is git run in the repository whose git directory is dir as an
// operator runs it by hand (git -C <dir>, git -C <work tree> for a .git):
// git finds the repository itself, and so applies its ownership rule
// (safe.directory, CVE-2022-24765) before it reads the repository's
// configuration — which an explicit --git-dir or GIT_DIR would skip, and
// with it every command another user's configuration names
// (core.sshCommand, core.fsmonitor, a credential helper, hooks).
// GIT_CEILING_DIRECTORIES keeps git from looking above dir for another
// repository; the variables that tie git to one are dropped.
func gitIn(ctx context.Context, dir string, args ...string) *exec.Cmd {
	top := repo.WorkTop(dir)
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", top}, args...)...)
	cmd.Env = append(proc.WithoutRepoEnv(os.Environ()), "GIT_CEILING_DIRECTORIES="+filepath.Dir(top), "PATH="+helperPATH())
	return cmd
}

// helperPATH is PATH with the runner's own directory at its end: git
// finds the helper for durable:: in its exec-path, then on PATH, and
// cron's PATH (/usr/bin:/bin) holds neither a no-root install's bin nor
// the directory make dist's binaries were unpacked in; the runner's
// directory holds the helper, which is the runner itself.
func helperPATH() string {
	path := os.Getenv("PATH")
	self, err := os.Executable()
	if err != nil {
		return path
	}
	dir := filepath.Dir(self)
	for _, d := range filepath.SplitList(path) {
		if d == dir {
			return path
		}
	}
	if path == "" {
		return dir
	}
	return path + string(filepath.ListSeparator) + dir
}

// refusal is why the runner leaves a repository untouched: git would not
// take it as the runner's user's, or the tree leads out of its root, or
// its lock file is not one. The repository fails, and the metrics count
// it as refused.
type refusal struct{ why string }

func (r *refusal) Error() string { return "refused: " + r.why }

// refused reports whether err is a refusal.
func refused(err error) bool {
	var r *refusal
	return errors.As(err, &r)
}

// checkOwner asks git whether it takes the repository whose git directory
// is dir as the runner's user's (see gitIn): owned by that user, or allowed
// by safe.directory in the system or global configuration. A repository it
// refuses, or finds elsewhere than dir, gets an error with git's reason; the
// runner then leaves it untouched — no lock file, no repair, no update.
func checkOwner(ctx context.Context, dir string) error {
	cmd := gitIn(ctx, dir, "rev-parse", "--absolute-git-dir")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := firstFatal(errb.String(), err)
		if strings.Contains(msg, "dubious ownership") {
			msg += fmt.Sprintf(" (git config --global --add safe.directory %s allows it)", repo.WorkTop(dir))
		}
		return &refusal{msg}
	}
	found := strings.TrimSuffix(out.String(), "\n")
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if found != real {
		return &refusal{fmt.Sprintf("git finds the repository %s there, not %s", quotePath(found), quotePath(real))}
	}
	return nil
}

// firstFatal is the first "fatal:" line of git's stderr without its
// prefix, or its last line, or err where it printed nothing.
func firstFatal(stderr string, err error) string {
	for _, l := range strings.Split(stderr, "\n") {
		if msg, ok := strings.CutPrefix(l, "fatal: "); ok {
			return msg
		}
	}
	return lastLine(stderr, err)
}
