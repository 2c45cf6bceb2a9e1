// Package repo finds the repository a command runs in and reads its
// configuration the way git does — by asking git, so that discovery
// (GIT_DIR, gitfiles, safe.directory), every config file, includes and
// `git -c` (GIT_CONFIG_PARAMETERS) behave exactly as for git itself — and
// turns the settings this project honours into typed values with git's
// semantics and git's error messages. The one question answered without
// git is where the repository and its objects are when git itself named
// them in GIT_DIR, in the plainest layout (gitdir.go); anything else is
// asked of git rev-parse.
package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/object"
)

// Repo is a discovered repository.
type Repo struct {
	GitDir    string // absolute
	CommonDir string // absolute: where the refs, packed-refs and config are (GitDir but in a linked worktree)
	ObjectDir string // absolute; honours GIT_OBJECT_DIRECTORY
	Format    object.Format
	Config    Config
}

// GitError is git's own failure, with what it printed on stderr.
type GitError struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = fmt.Sprintf("git %s exited with %d", strings.Join(e.Args, " "), e.Code)
	}
	return msg
}

// AsGitError returns git's own failure where git, run with args, exited
// with a code (err an *exec.ExitError), with what it printed on stderr.
func AsGitError(args []string, err error, stderr string) (*GitError, bool) {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return nil, false
	}
	return &GitError{Args: args, Code: ee.ExitCode(), Stderr: stderr}, true
}

// git runs git with args in dir (the current directory when "").
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return run(ctx, dir, nil, args)
}

// Git runs git with args, stdin from in when not nil, in the current
// directory and environment (GIT_DIR as git set it for a helper), and
// returns its stdout. A failure is a *GitError carrying git's stderr.
func Git(ctx context.Context, in []byte, args ...string) ([]byte, error) {
	return run(ctx, "", in, args)
}

func run(ctx context.Context, dir string, in []byte, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	if in != nil {
		cmd.Stdin = bytes.NewReader(in)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ge, ok := AsGitError(args, err, errb.String()); ok {
			return nil, ge
		}
		return nil, fmt.Errorf("cannot run git: %w", err)
	}
	return out.Bytes(), nil
}

// Discover finds the repository of the current directory (or of GIT_DIR)
// and reads its configuration.
func Discover(ctx context.Context) (*Repo, error) {
	if _, ok := explicitDir(); ok {
		cfg, err := Load(ctx, "")
		if err != nil {
			if _, ferr := find(ctx); ferr != nil {
				return nil, ferr // git's complaint about the repository comes first
			}
			return nil, err
		}
		return DiscoverWith(ctx, cfg)
	}
	// git config finds the same repository as git rev-parse (same
	// directory, same environment): the two run at once, which saves a
	// process's start on every invocation.
	type loaded struct {
		cfg Config
		err error
	}
	cfgc := make(chan loaded, 1)
	go func() {
		cfg, err := Load(ctx, "")
		cfgc <- loaded{cfg, err}
	}()
	r, err := find(ctx)
	cl := <-cfgc
	if err != nil {
		return nil, err
	}
	if cl.err != nil {
		return nil, cl.err
	}
	r.Config = cl.cfg
	return r, nil
}

// DiscoverWith is Discover for a caller that has read the configuration
// already, with Load(ctx, "") in the same directory and environment. Where
// git named the repository in GIT_DIR, its answer is worked out without
// git rev-parse (fromEnv), so the common case costs one git process, not
// two.
func DiscoverWith(ctx context.Context, cfg Config) (*Repo, error) {
	var r *Repo
	ok := false
	if dir, explicit := explicitDir(); explicit {
		r, ok = fromEnv(dir, cfg)
	}
	if !ok {
		var err error
		if r, err = find(ctx); err != nil {
			return nil, err
		}
	}
	r.Config = cfg
	return r, nil
}

// find asks git rev-parse where the repository and its objects are and
// which object format it uses.
func find(ctx context.Context) (*Repo, error) {
	out, err := git(ctx, "", "rev-parse", "--absolute-git-dir", "--git-path", "objects", "--show-object-format", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 4 {
		return nil, fmt.Errorf("unexpected output of git rev-parse: %q", out)
	}
	r := &Repo{GitDir: lines[0]}
	if r.ObjectDir, err = filepath.Abs(lines[1]); err != nil {
		return nil, err
	}
	if r.CommonDir, err = filepath.Abs(lines[3]); err != nil {
		return nil, err
	}
	if r.Format, err = object.ParseFormat(lines[2]); err != nil {
		return nil, err
	}
	return r, nil
}

// Load reads the configuration git sees in the repository gitDir (every
// scope, includes and `git -c` values), in order. Where gitDir is "" and
// git named the repository in GIT_DIR (explicitDir), the plainest
// configurations are read without git (plainConfig); git config reads
// every other.
func Load(ctx context.Context, gitDir string) (Config, error) {
	return load(ctx, gitDir, false)
}

// LoadStarted is Load(ctx, "") for a command git starts in the repository
// it names in GIT_DIR, a remote helper: that git has set the repository up
// and so taken its format, and a plain format 1 with the object format and
// ref storage extensions alone (SHA-256, reftable) is read without git as
// well.
func LoadStarted(ctx context.Context) (Config, error) {
	return load(ctx, "", true)
}

func load(ctx context.Context, gitDir string, started bool) (Config, error) {
	if dir, ok := explicitDir(); ok && gitDir == "" {
		if c, ok := plainConfig(dir, started); ok {
			return c, nil
		}
	}
	return loadGit(ctx, gitDir)
}

// loadGit is Load by git config --list.
func loadGit(ctx context.Context, gitDir string) (Config, error) {
	args := []string{"config", "--list", "-z", "--show-scope"}
	if gitDir != "" {
		args = append([]string{"--git-dir=" + gitDir}, args...)
	}
	out, err := git(ctx, "", args...)
	if err != nil {
		var ge *GitError
		if errors.As(err, &ge) && ge.Code == 1 && ge.Stderr == "" {
			return Config{}, nil // no configuration at all
		}
		return nil, err
	}
	return parseList(out), nil
}
