package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/remote"
)

// TestRemoteSessionStats: every session of the helper ends with one line
// of the statistics file naming the repository and how it went — a clone
// ("fetched", its batches added up), a fetch with nothing new
// ("up-to-date"), a fetch whose upstream is gone ("failed", with the fatal
// line git printed), a push ("pushed") — so that a monitor sees every
// fetch, not only those that brought a pack.
func TestRemoteSessionStats(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	statsFile := filepath.Join(base, "stats.jsonl")
	env = append(env, "GIT_REMOTE_DURABLE_STATS="+statsFile)
	m := filepath.Join(base, "m.git")
	run := func(dir string, args ...string) *gittest.Cmd {
		os.Remove(statsFile)
		return gittest.Exec(t, env, dir, nil, "git", args...)
	}
	abs := func(p string) string {
		r, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	one := func(what string) remote.SessionStats {
		t.Helper()
		ss := readSessions(t, statsFile)
		if len(ss) != 1 {
			t.Fatalf("%s: %d session lines, want 1", what, len(ss))
		}
		return ss[0]
	}

	mustRun(t, run(base, "clone", "-q", "--mirror", "durable::file://"+up, m), "clone")
	s := one("clone")
	batches := readStats(t, statsFile)
	if s.Result != "fetched" || s.Op != "fetch" || s.Batches != len(batches) || s.Batches == 0 || s.Written != batches[0].Written ||
		abs(s.Repository) != abs(m) || s.URL != "file://"+up || s.Time == "" || s.Path == "" {
		t.Errorf("clone: %+v", s)
	}
	if s.HardwareFlush != batches[0].HardwareFlush+1 {
		t.Errorf("clone: %d hardware flushes in the session, want the batch's %d and the refs'", s.HardwareFlush, batches[0].HardwareFlush)
	}

	mustRun(t, run(m, "fetch"), "fetch with nothing new")
	if s := one("fetch with nothing new"); s.Result != "up-to-date" || s.Batches != 0 || abs(s.Repository) != abs(m) || s.Path == "" || s.Error != "" {
		t.Errorf("fetch with nothing new: %+v", s)
	}

	gittest.Git(t, env, m, "config", "remote.origin.url", "durable::file://"+filepath.Join(base, "gone.git"))
	c := run(m, "fetch")
	if c.Code == 0 {
		t.Fatal("a fetch from nowhere succeeded")
	}
	s = one("fetch from nowhere")
	if s.Result != "failed" || s.Error == "" || !strings.Contains(string(c.Stderr), "fatal: "+s.Error) || abs(s.Repository) != abs(m) {
		t.Errorf("failed fetch: %+v\n%s", s, c.Stderr)
	}

	work := filepath.Join(base, "work")
	gittest.Git(t, env, base, "clone", "-q", up, work)
	gittest.Git(t, env, work, "commit", "-q", "--allow-empty", "-m", "pushed")
	c = run(work, "push", "-q", "durable::file://"+up, "HEAD:refs/heads/pushed")
	mustRun(t, c, "push")
	if s := one("push"); s.Result != "pushed" || s.Op != "push" {
		t.Errorf("push: %+v", s)
	}
}
