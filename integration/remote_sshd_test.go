package integration

import (
	"os/user"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteRealSSH clones, fetches and pushes through a real sshd with the
// user's ssh (GIT_SSH_COMMAND), next to stock git over the same URL.
func TestRemoteRealSSH(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	ssh, port := startSSHD(t, env, t.TempDir())
	u, err := user.Current()
	if err != nil {
		t.Skip("no user name: ", err)
	}
	env = append(env, "GIT_SSH_COMMAND="+ssh)
	dir := newUpstream(t, env, base, "up.git")
	url := "ssh://" + u.Username + "@127.0.0.1:" + strconv.Itoa(port) + dir
	probe := gittest.Exec(t, env, "", nil, "git", "ls-remote", url)
	if probe.Code != 0 {
		t.Skipf("stock git cannot log in to the test's sshd: %s", probe.Stderr)
	}
	work := t.TempDir()
	ours, theirs := filepath.Join(work, "ours"), filepath.Join(work, "theirs")
	c, stats := durable(t, env, "", "clone", "durable::"+url, ours)
	mustRun(t, c, "clone over ssh")
	checkBatches(t, stats)
	gittest.Git(t, env, "", "clone", "-q", url, theirs)
	sameRepo(t, env, ours, theirs)

	advance(t, env, dir, 2, "v600")
	c, stats = durable(t, env, ours, "fetch")
	mustRun(t, c, "fetch over ssh")
	checkBatches(t, stats)
	gittest.Git(t, env, theirs, "fetch", "-q")
	sameRepo(t, env, ours, theirs)

	c = gittest.Exec(t, env, ours, nil, "git", "push", "origin", "HEAD:refs/heads/over-ssh")
	mustRun(t, c, "push over ssh")
	if a, b := gittest.Git(t, env, dir, "rev-parse", "over-ssh"), gittest.Git(t, env, ours, "rev-parse", "HEAD"); a != b {
		t.Fatalf("pushed %s, upstream has %s", b, a)
	}
}
