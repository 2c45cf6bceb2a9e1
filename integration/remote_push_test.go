package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemotePush pushes through the helper to each kind of upstream: a new
// branch, a fast-forward, a forced update, a delete, a dry run, an atomic
// push, a stale --force-with-lease, and the refusals git reports in its own
// words: non-fast-forward, fetch first, and the upstream's own refusal.
func TestRemotePush(t *testing.T) {
	forKinds(t, func(t *testing.T, env []string, up upstream) {
		ours := filepath.Join(t.TempDir(), "ours")
		c, _ := durable(t, env, "", "clone", "durable::"+up.url, ours)
		mustRun(t, c, "clone")
		n := 0
		commit := func() string {
			n++
			gittest.WriteFile(t, ours, "pushed.txt", fmt.Sprintf("change %d\n", n))
			gittest.Git(t, gittest.Tick(env, 2000+n), ours, "add", "pushed.txt")
			gittest.Git(t, gittest.Tick(env, 2000+n), ours, "commit", "-q", "-m", fmt.Sprintf("change %d", n))
			return strings.TrimSpace(gittest.Git(t, env, ours, "rev-parse", "HEAD"))
		}
		upRef := func(ref string) string {
			c := gittest.Exec(t, env, up.dir, nil, "git", "rev-parse", "-q", "--verify", ref)
			return strings.TrimSpace(string(c.Stdout))
		}
		push := func(wantCode int, wantErr string, args ...string) *gittest.Cmd {
			t.Helper()
			c := gittest.Exec(t, env, ours, nil, "git", append([]string{"push"}, args...)...)
			if c.Code != wantCode || !strings.Contains(string(c.Stderr), wantErr) {
				t.Fatalf("git push %v: exit %d, want %d and %q\n%s", args, c.Code, wantCode, wantErr, c.Stderr)
			}
			if strings.Contains(string(c.Stderr), "fatal:") {
				t.Fatalf("git push %v: %s", args, c.Stderr)
			}
			return c
		}

		gittest.Git(t, env, ours, "checkout", "-q", "-b", "topic")
		id := commit()
		push(0, " * [new branch]      topic -> topic", "origin", "topic")
		if upRef("refs/heads/topic") != id {
			t.Fatal("new branch not on the upstream")
		}
		id = commit()
		push(0, "topic -> topic", "origin", "topic")
		if upRef("refs/heads/topic") != id {
			t.Fatal("fast-forward not on the upstream")
		}
		gittest.Git(t, env, ours, "reset", "-q", "--hard", "HEAD~2")
		id = commit()
		push(1, "! [rejected]        topic -> topic (non-fast-forward)", "origin", "topic")
		if upRef("refs/heads/topic") == id {
			t.Fatal("a non-fast-forward went through")
		}
		push(1, "! [rejected]        topic -> topic (stale info)", "--force-with-lease=topic:"+strings.Repeat("1", 40), "origin", "topic")
		push(0, "topic -> topic (forced update)", "--dry-run", "--force", "origin", "topic")
		if upRef("refs/heads/topic") == id {
			t.Fatal("a dry run changed the upstream")
		}
		push(0, "(forced update)", "--force", "origin", "topic")
		if upRef("refs/heads/topic") != id {
			t.Fatal("forced update not on the upstream")
		}
		push(0, " - [deleted]         topic", "origin", "--delete", "topic")
		if upRef("refs/heads/topic") != "" {
			t.Fatal("delete did not delete")
		}
		gittest.Git(t, env, ours, "tag", "-a", "-m", "pushed", "pushed-tag")
		push(0, " * [new tag]         pushed-tag -> pushed-tag", "--atomic", "origin", "HEAD:refs/heads/atomic1", "pushed-tag")
		if upRef("refs/heads/atomic1") != id || upRef("refs/tags/pushed-tag") == "" {
			t.Fatal("atomic push incomplete")
		}

		// Someone else pushes to main: ours does not have it.
		gittest.Git(t, env, ours, "checkout", "-q", "main")
		advance(t, env, up.dir, 1, "")
		upMain := upRef("refs/heads/main")
		commit()
		push(1, "! [rejected]        main -> main (fetch first)", "origin", "main")
		// The upstream refuses on its own.
		gittest.Git(t, env, up.dir, "config", "receive.denyNonFastForwards", "true")
		push(1, "! [remote rejected] main -> main (", "--force", "origin", "main")
		if upRef("refs/heads/main") != upMain {
			t.Fatal("a refused push changed the upstream's main")
		}
		gittest.Fsck(t, env, up.dir)
	})
}
