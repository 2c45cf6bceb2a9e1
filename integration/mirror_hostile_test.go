//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestMirrorRunnerOwnership: the runner, run as root over a tree holding a
// mirror another user owns whose configuration names commands
// (core.sshCommand for a remote over ssh, core.hooksPath with a
// reference-transaction hook), leaves it untouched as plain git refuses it
// ("detected dubious ownership"): no command of its configuration runs, no
// lock file is created, the line says why, the metrics count it refused,
// the exit is 1. Once safe.directory allows it, it is updated, and the
// lock file the run created is its owner's: a run as that user then
// updates it too, as it does when the lock file is root's and not
// writable.
func TestMirrorRunnerOwnership(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("another user's repository needs root")
	}
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	theirs := filepath.Join(tree, "theirs.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, theirs)
	marker := filepath.Join(base, "ran")
	hooks := filepath.Join(theirs, "myhooks")
	gittest.WriteFile(t, hooks, "reference-transaction", "#!/bin/sh\necho hook >>"+marker+"\n")
	if err := os.Chmod(filepath.Join(hooks, "reference-transaction"), 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, env, theirs, "config", "core.hooksPath", hooks)
	gittest.Git(t, env, theirs, "config", "core.sshCommand", "echo ssh >>"+marker+"; false")
	gittest.Git(t, env, theirs, "remote", "add", "viassh", "ssh://127.0.0.1/x.git")
	advance(t, env, up, 1, "own1")
	chownTree(t, theirs, nobodyID)

	if c := gittest.Exec(t, env, theirs, nil, "git", "remote", "update", "--prune"); c.Code == 0 || !strings.Contains(string(c.Stderr), "dubious ownership") {
		t.Fatalf("plain git: exit %d\n%s", c.Code, c.Stderr)
	}
	metrics := filepath.Join(base, "m.prom")
	c := runner(t, env, "--metrics", metrics, tree)
	if l := runnerLine(t, c, theirs); c.Code != 1 || !strings.Contains(l, " failed ") || !strings.Contains(l, "refused: detected dubious ownership in repository at") {
		t.Errorf("exit %d, line %q", c.Code, l)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("the configuration of another user's repository ran: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(theirs, "durable-update.flock")); err == nil {
		t.Errorf("a lock file was created in a repository git refuses")
	}
	if m := string(readFile(t, metrics)); !strings.Contains(m, series("git_durable_update_refused", tree, theirs)+"1\n") {
		t.Errorf("metrics:\n%s", m)
	}

	// Allowed by the operator: updated, the lock file its owner's.
	gittest.Git(t, env, "", "config", "--global", "--add", "safe.directory", theirs)
	gittest.Git(t, env, theirs, "remote", "remove", "viassh")
	gittest.Git(t, env, theirs, "config", "--unset", "core.hooksPath")
	mustRun(t, runner(t, env, tree), "the run safe.directory allows")
	if a, b := refs(t, env, theirs), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
	lock := filepath.Join(theirs, "durable-update.flock")
	var st syscall.Stat_t
	if err := syscall.Lstat(lock, &st); err != nil || st.Uid != nobodyID {
		t.Errorf("lock file %v, owner %d; want the repository owner's", err, st.Uid)
	}
	// The upstream becomes the owner's too (git's upload-pack refuses
	// another user's repository); root's git, which moves it on, is
	// allowed there.
	gittest.Git(t, env, "", "config", "--global", "--add", "safe.directory", up)
	advance(t, env, up, 1, "own2")
	owner := func(what string) {
		t.Helper()
		name, args, cmdEnv := asUser(t, "nobody", env, nil, []string{theirs, up}, filepath.Join(binDir, "git-remote-durable"), "--update-mirrors", tree)
		c := gittest.Exec(t, cmdEnv, "", nil, name, args...)
		if l := runnerLine(t, c, theirs); c.Code != 0 || !strings.Contains(l, " ok ") {
			t.Errorf("%s: exit %d, line %q\n%s", what, c.Code, l, c.Stderr)
		}
	}
	owner("the owner's run after root's")
	if err := os.Chown(lock, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(lock, 0o644); err != nil {
		t.Fatal(err)
	}
	advance(t, env, up, 1, "own3")
	owner("the owner's run with a lock file root left")
	if a, b := refs(t, env, theirs), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
}

// TestMirrorRunnerLockPath: a lock file that is a symbolic link (to a file
// that does not exist: the runner would create it, as root anywhere) or
// that is not a regular file (a FIFO) is refused for its repository, said
// on its line, and nothing is created where the link leads; the other
// mirrors of the run are updated.
func TestMirrorRunnerLockPath(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	link, fifo, good := filepath.Join(tree, "link.git"), filepath.Join(tree, "fifo.git"), filepath.Join(tree, "good.git")
	for _, dir := range []string{link, fifo, good} {
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, dir)
	}
	victim := filepath.Join(base, "nologin")
	if err := os.Symlink(victim, filepath.Join(link, "durable-update.flock")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(fifo, "durable-update.flock"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := runner(t, env, tree)
	if _, err := os.Lstat(victim); err == nil {
		t.Errorf("the runner created the file its lock link leads to")
	}
	for dir, want := range map[string]string{
		link: "refused: " + filepath.Join(link, "durable-update.flock") + " is a symbolic link",
		fifo: "refused: " + filepath.Join(fifo, "durable-update.flock") + " is not a regular file",
		good: " ok ",
	} {
		if l := runnerLine(t, c, dir); !strings.Contains(l, want) {
			t.Errorf("%s: %q, want %q", filepath.Base(dir), l, want)
		}
	}
	if c.Code != 1 {
		t.Errorf("exit %d, want 1", c.Code)
	}
}

// TestMirrorRunnerDotGitLink: a work tree under the root whose .git is a
// symbolic link to a repository outside the root is refused: the
// repository there is neither repaired (its broken ref stays) nor updated.
// A .git that links to a repository under the root is updated.
func TestMirrorRunnerDotGitLink(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	outside := filepath.Join(base, "outside", "real.git")
	inside := filepath.Join(tree, "inside.git")
	for _, dir := range []string{outside, inside} {
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, dir)
	}
	for name, to := range map[string]string{"out": outside, "in": inside} {
		if err := os.MkdirAll(filepath.Join(tree, "wt-"+name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, filepath.Join(tree, "wt-"+name, ".git")); err != nil {
			t.Fatal(err)
		}
	}
	gittest.WriteFile(t, outside, "refs/heads/broken", "")
	before := refs(t, env, outside)
	advance(t, env, up, 1, "v9")
	c := runner(t, env, tree)
	if l := runnerLine(t, c, filepath.Join(tree, "wt-out", ".git")); c.Code != 1 || !strings.Contains(l, "refused: .git is a symbolic link to "+outside+", outside "+tree) {
		t.Errorf("exit %d, line %q", c.Code, l)
	}
	if _, err := os.Stat(filepath.Join(outside, "refs/heads/broken")); err != nil {
		t.Errorf("the repository outside the root was repaired: %v", err)
	}
	if after := refs(t, env, outside); after != before {
		t.Errorf("the repository outside the root was updated:\n%s", after)
	}
	if l := runnerLine(t, c, inside); !strings.Contains(l, " ok ") || strings.Count(string(c.Stdout), inside) != 1 {
		t.Errorf("inside: %q\n%s", l, c.Stdout)
	}
}

// chownTree gives the tree at dir to uid (and its group).
func chownTree(t *testing.T, dir string, uid int) {
	t.Helper()
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, uid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMirrorRunnerNames: mirrors whose paths hold a byte that is not UTF-8,
// a newline (with what would read as another mirror's line after it), a
// backslash and a space each get one log line, their path quoted as git
// quotes one where it must be, and valid UTF-8 series in the metrics
// file, which promtool and node_exporter's textfile collector read whole.
// A second run, in which the non-UTF-8 mirror fails, carries its last
// success over under the same label: one series per mirror, no other.
func TestMirrorRunnerNames(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	names := map[string]string{ // name: its path in the log line
		"caf\xe9.git": `"` + tree + `/caf\351.git"`,
		"evil\n2026-01-01T00:00:00Z " + filepath.Join(tree, "other.git") + " ok 0.1s.git": `"` + tree + `/evil\n2026-01-01T00:00:00Z ` + tree + `/other.git ok 0.1s.git"`,
		`back\slash.git`: `"` + tree + `/back\\slash.git"`,
		"with space.git": tree + "/with space.git",
	}
	for name := range names {
		// Plain git: the helper's "lock <path>" cannot carry a newline.
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "file://"+up, filepath.Join(tree, name))
		gittest.Git(t, env, filepath.Join(tree, name), "config", "remote.origin.url", "durable::file://"+up)
	}
	metrics := filepath.Join(base, "textfile", "git_durable.prom")
	if err := os.MkdirAll(filepath.Dir(metrics), 0o755); err != nil {
		t.Fatal(err)
	}
	check := func(c *gittest.Cmd, failing string) {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(string(c.Stdout), "\n"), "\n")
		if len(lines) != len(names) {
			t.Errorf("%d lines for %d mirrors:\n%s", len(lines), len(names), c.Stdout)
		}
		for name, shown := range names {
			want := " " + shown + " ok "
			if name == failing {
				want = " " + shown + " failed "
			}
			if n := strings.Count(string(c.Stdout), want); n != 1 {
				t.Errorf("%d lines with %q:\n%s", n, want, c.Stdout)
			}
		}
		m := string(readFile(t, metrics))
		if !utf8.ValidString(m) {
			t.Errorf("the metrics are not UTF-8:\n%q", m)
		}
		promtoolCheck(t, m)
		scrape := scrapeClean(t, filepath.Dir(metrics))
		if n := strings.Count(scrape, "\ngit_durable_update_last_success_timestamp_seconds{"); n != len(names) {
			t.Errorf("%d last_success series for %d mirrors:\n%s", n, len(names), m)
		}
	}
	c := runner(t, env, "--metrics", metrics, tree)
	mustRun(t, c, "the first run")
	check(c, "")
	first := string(readFile(t, metrics))
	odd := filepath.Join(tree, "caf\xe9.git")
	gittest.Git(t, env, odd, "config", "remote.origin.url", "durable::file://"+filepath.Join(base, "gone.git"))
	c = runner(t, env, "--metrics", metrics, tree)
	check(c, "caf\xe9.git")
	label := series(lastSuccess, tree, tree+`/caf\\xe9.git`)
	was, now := lineWith(first, label), lineWith(string(readFile(t, metrics)), label)
	if was == "" || was != now {
		t.Errorf("last success of the failing mirror: %q, then %q", was, now)
	}
}
