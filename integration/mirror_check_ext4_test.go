//go:build linux

package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/blocktest"
	"github.com/git-durable/git-durable/internal/gittest"
)

// TestMirrorCheckFastCommit: on an ext4 with fast commits, --check names
// the one configuration docs/durability.md says breaks crash images —
// reference in core.fsync (here through committed) — and exits 1; without
// it the mirror is durable.
func TestMirrorCheckFastCommit(t *testing.T) {
	env := realEnv(t)
	root := blocktest.MountScratch(t, ext4With("", "-O", "fast_commit"))
	up := newUpstream(t, env, root, "up.git")
	m := filepath.Join(root, "m.git")
	gittest.Git(t, env, root, "clone", "-q", "--mirror", "durable::file://"+up, m)
	check := func() *gittest.Cmd {
		return gittest.Exec(t, env, m, nil, filepath.Join(binDir, "git-remote-durable"), "--check")
	}
	if c := check(); c.Code != 0 || !strings.Contains(string(c.Stdout), "fast_commit") {
		t.Errorf("defaults: exit %d\n%s", c.Code, c.Stdout)
	}
	gittest.Git(t, env, m, "config", "core.fsync", "committed")
	c := check()
	if c.Code != 1 || !strings.Contains(string(c.Stdout), "refs synced   core.fsync syncs refs (reference) on an ext4 with fast commits") {
		t.Errorf("core.fsync=committed: exit %d\n%s", c.Code, c.Stdout)
	}
}
