package remote

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-durable/git-durable/internal/repo"
)

// runGit runs git with args, stdin from in when not nil, in the helper's
// working directory and environment (GIT_DIR as git set it), and returns
// its stdout. A failure is a *repo.GitError carrying git's stderr.
func runGit(ctx context.Context, in []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	if in != nil {
		cmd.Stdin = bytes.NewReader(in)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, &repo.GitError{Args: args, Code: ee.ExitCode(), Stderr: errb.String()}
		}
		return nil, fmt.Errorf("cannot run git: %w", err)
	}
	return out.Bytes(), nil
}

// hashes parses git's output of one object id per line (the first field
// of each line).
func hashes(out []byte) []plumbing.Hash {
	var hs []plumbing.Hash
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f, _, _ := strings.Cut(sc.Text(), " ")
		if plumbing.IsHash(f) {
			hs = append(hs, plumbing.NewHash(f))
		}
	}
	return hs
}

// config returns the configuration git sees here (every scope, GIT_DIR's
// repository when there is one, git -c), read once.
func (h *helper) config() (repo.Config, error) {
	if h.cfgd {
		return h.cfg, nil
	}
	cfg, err := repo.Load(h.ctx, "")
	if err != nil {
		return nil, err
	}
	h.cfg, h.cfgd = cfg, true
	return cfg, nil
}

// repository returns the repository git runs the helper for.
func (h *helper) repository() (*repo.Repo, error) {
	if h.local != nil {
		return h.local, nil
	}
	cfg, err := h.config()
	if err != nil {
		return nil, err
	}
	r, err := repo.DiscoverWith(h.ctx, cfg)
	if err != nil {
		return nil, err
	}
	if r.Format.String() != "sha1" {
		return nil, fmt.Errorf("the repository uses %s object names, and git-remote-durable can fetch only sha1 (go-git v5)", r.Format)
	}
	h.local = r
	return r, nil
}
