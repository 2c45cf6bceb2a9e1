//go:build !windows

package integration

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// The runner never removes what git can still read: each test damages a
// mirror as a failing disk, a late mount or a live git would, runs plain
// git's update beside the runner on the same damage, and checks that no
// ref was lost.

// TestMirrorRunnerKeepsRefsPackCut: a mirror whose pack is cut to 60 % (its
// index intact) keeps every ref through the runner, as through plain git's
// update; the runner's update fetches what the cut pack held again and the
// mirror ends whole, the cut pack set aside. (Before: the runner deleted
// every ref whose object was in the cut pack.)
func TestMirrorRunnerKeepsRefsPackCut(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	for i := range 5 {
		gittest.Git(t, env, up, "tag", "v"+string(rune('0'+i)), "main~"+string(rune('0'+i)))
	}
	tree := filepath.Join(base, "tree")
	ours, plain := filepath.Join(tree, "ours.git"), filepath.Join(base, "plain.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, ours)
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "file://"+up, plain)
	want := refs(t, env, up)
	for _, m := range []string{ours, plain} {
		p := packFiles(t, m)["pack"][0]
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o644)
		if err := os.Truncate(p, st.Size()*6/10); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Exec(t, env, plain, nil, "git", "remote", "update", "--prune")
	if got := refNames(t, plain); got != refNames(t, up) {
		t.Errorf("plain git lost refs:\n%s", got)
	}
	c := runner(t, env, tree)
	l := runnerLine(t, c, ours)
	if got := refNames(t, ours); got != refNames(t, up) {
		t.Fatalf("the runner lost refs (%q):\n%s", l, got)
	}
	if c.Code != 0 || !strings.Contains(l, " ok ") {
		t.Errorf("exit %d, %q", c.Code, l)
	}
	if got := refs(t, env, ours); got != want {
		t.Errorf("refs\n%s\nwant\n%s", got, want)
	}
	gittest.Fsck(t, env, ours)
	if kept, _ := filepath.Glob(filepath.Join(ours, "durable-quarantine", "*", "objects", "pack", "*.pack")); len(kept) != 1 {
		t.Errorf("the cut pack kept aside: %v", kept)
	}
}

// refNames lists the names of the refs of the repository dir, read from
// its files as they are (git for-each-ref leaves out a ref whose object is
// missing, and dies on some).
func refNames(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	filepath.WalkDir(filepath.Join(dir, "refs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".lock") {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if b, err := os.ReadFile(filepath.Join(dir, "packed-refs")); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if _, name, ok := strings.Cut(l, " "); ok && !strings.HasPrefix(l, "#") {
				names = append(names, name)
			}
		}
	}
	return sortedLines(strings.Join(names, "\n"))
}

// TestMirrorRunnerAlternatesAway: a mirror that borrows its objects from a
// store (objects/info/alternates, as grokmirror's objstore) whose disk is
// not mounted yet keeps every ref: the runner's update fails with one line
// that names the store, touching nothing, as plain git keeps them; once the
// store is back, the update passes. (Before: the runner deleted every ref
// of the borrower.)
func TestMirrorRunnerAlternatesAway(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	store := filepath.Join(base, "store.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "file://"+up, store)
	tree := filepath.Join(base, "tree")
	ours, plain := filepath.Join(tree, "ours.git"), filepath.Join(base, "plain.git")
	for _, m := range []string{ours, plain} {
		url := "file://" + up
		if m == ours {
			url = "durable::" + url
		}
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "--reference", store, url, m)
		gittest.Git(t, env, m, "repack", "-adlq") // what the store holds goes: borrowed
		if looseCount(t, m) > 0 || len(packFiles(t, m)["pack"]) > 0 {
			t.Fatalf("%s holds objects of its own: the store's were not borrowed", m)
		}
	}
	advance(t, env, up, 1, "r1")
	before := refNames(t, ours)
	away := store + ".away"
	if err := os.Rename(store, away); err != nil {
		t.Fatal(err)
	}
	gittest.Exec(t, env, plain, nil, "git", "remote", "update", "--prune")
	if got := refNames(t, plain); !strings.Contains(got, "refs/heads/main") {
		t.Errorf("plain git lost refs:\n%s", got)
	}
	c := runner(t, env, tree)
	l := runnerLine(t, c, ours)
	if c.Code != 1 || !strings.Contains(l, " failed ") || !strings.Contains(l, "object directory "+filepath.Join(store, "objects")+" does not exist") {
		t.Errorf("exit %d, %q", c.Code, l)
	}
	if got := refNames(t, ours); got != before {
		t.Errorf("refs while the store is away:\n%s\nbefore:\n%s", got, before)
	}
	if err := os.Rename(away, store); err != nil {
		t.Fatal(err)
	}
	mustRun(t, runner(t, env, tree), "the runner with the store back")
	if a, b := refs(t, env, ours), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
	gittest.Fsck(t, env, ours)
}

// TestMirrorRunnerLiveLock: a git update-ref --stdin that holds its ref
// locks longer than the runner's --timeout (prepared, its lock files
// written and closed, as git holds them) is a live transaction, not a
// stale one: the runner leaves its lock (the update fails with git's line
// that names it, and says which live process works in the repository),
// and the transaction then commits. (Before: the runner removed the lock,
// and the transaction failed.)
func TestMirrorRunnerLiveLock(t *testing.T) {
	env := env(t)
	_, up, tree, m := durableMirror(t, env)
	advance(t, env, up, 1, "r1")
	target := strings.TrimSpace(gittest.Git(t, env, m, "rev-parse", "main~1"))
	cmd := exec.Command("git", "update-ref", "--stdin")
	cmd.Dir, cmd.Env = m, env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	io.WriteString(in, "start\nupdate refs/heads/main "+target+"\nprepare\n")
	out := bufio.NewReader(outp)
	for _, want := range []string{"start: ok", "prepare: ok"} {
		if l, _ := out.ReadString('\n'); strings.TrimSpace(l) != want {
			t.Fatalf("update-ref --stdin said %q, want %q", l, want)
		}
	}
	lock := filepath.Join(m, "refs", "heads", "main.lock")
	old := time.Now().Add(-10 * time.Second) // in this boot, past the runner's --timeout
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	c := runner(t, env, "--timeout", "5s", tree)
	l := runnerLine(t, c, m)
	if c.Code != 1 || !strings.Contains(l, "refs/heads/main.lock': File exists") || !strings.Contains(l, "left the lock file refs/heads/main.lock: a live process works in the repository (pid ") {
		t.Errorf("exit %d, %q", c.Code, l)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Errorf("the live lock: %v", err)
	}
	io.WriteString(in, "commit\n")
	if l, _ := out.ReadString('\n'); strings.TrimSpace(l) != "commit: ok" {
		t.Errorf("the transaction said %q, want commit: ok", l)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("git update-ref --stdin: %v", err)
	}
	if got := strings.TrimSpace(gittest.Git(t, env, m, "rev-parse", "main")); got != target {
		t.Errorf("main is %s, want the transaction's %s", got, target)
	}
}

// TestMirrorRunnerStatsLink: a statistics file planted in a mirror as a
// symbolic link to a private file is never followed: the private file is
// neither read into the runner's statistics nor written, nor are its mode
// or owner changed; the update itself passes.
func TestMirrorRunnerStatsLink(t *testing.T) {
	env := env(t)
	base, up, tree, m := durableMirror(t, env)
	secret := filepath.Join(base, "secret")
	const private = "{\"kind\":\"session\",\"result\":\"fetched\",\"secret\":\"hunter2\"}\n"
	if err := os.WriteFile(secret, []byte(private), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(m, "durable-update.stats")); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(base, "runner.stats")
	for range 2 {
		advance(t, env, up, 1, "")
		c := runner(t, append(append([]string{}, env...), "GIT_REMOTE_DURABLE_STATS="+mine), tree)
		mustRun(t, c, "the runner")
		if err := os.Symlink(secret, filepath.Join(m, "durable-update.stats")); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	if b := readFile(t, secret); string(b) != private {
		t.Errorf("the private file was written: %q", b)
	}
	if st, err := os.Stat(secret); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the private file's mode: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(mine); strings.Contains(string(b), "hunter2") {
		t.Errorf("the private file was read into the runner's statistics:\n%s", b)
	}
	if a, b := refs(t, env, m), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
}

// TestMirrorRunnerQuarantineExpires: what a run sets aside stays in the
// mirror's durable-quarantine/ — counted in the metrics, files and bytes —
// for --quarantine-days; --quarantine-days 0 empties it, and says so.
func TestMirrorRunnerQuarantineExpires(t *testing.T) {
	env := env(t)
	base, _, tree, m := durableMirror(t, env)
	gittest.WriteFile(t, m, "refs/heads/torn", "garbled by a crash\n")
	metrics := filepath.Join(base, "m.prom")
	c := runner(t, env, "--metrics", metrics, tree)
	mustRun(t, c, "the runner")
	mtx := string(readFile(t, metrics))
	if !strings.Contains(mtx, series("git_durable_update_retired_files", tree, m)+"1\n") || strings.Contains(mtx, series("git_durable_update_quarantine_bytes", tree, m)+"0\n") {
		t.Errorf("metrics:\n%s", mtx)
	}
	if kept, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*", "refs", "heads", "torn")); len(kept) != 1 {
		t.Fatalf("kept aside: %v", kept)
	}
	mustRun(t, runner(t, env, tree), "a second run")
	if kept, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*")); len(kept) != 1 {
		t.Errorf("within --quarantine-days: %v", kept)
	}
	c = runner(t, env, "--quarantine-days", "0", "--metrics", metrics, tree)
	if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, "removed 1 folder of durable-quarantine older than 0 days") {
		t.Errorf("exit %d, %q", c.Code, l)
	}
	if kept, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*")); len(kept) != 0 {
		t.Errorf("after --quarantine-days 0: %v", kept)
	}
	if mtx := string(readFile(t, metrics)); !strings.Contains(mtx, series("git_durable_update_quarantine_bytes", tree, m)+"0\n") {
		t.Errorf("metrics:\n%s", mtx)
	}
}

// TestMirrorRunnerMendsAtOnce: an update that fails on a broken packed
// object (the tree of the tip, which git's check after the fetch reads)
// mends the repository at once, as --verify would — the object fetched
// again by id, the pack written again — and updates it: "ok", the refs the
// upstream's, git fsck clean; the line says what was mended. (Before: it
// failed with git's line at every update until a --verify.)
func TestMirrorRunnerMendsAtOnce(t *testing.T) {
	env := env(t)
	_, up, tree, m := durableMirror(t, env, "-c", "fetch.unpackLimit=1")
	root := strings.TrimSpace(gittest.Git(t, env, m, "rev-parse", "main^{tree}"))
	idx, path := packIndex(t, m)
	id, err := object.ParseID(root)
	if err != nil {
		t.Fatal(err)
	}
	off, ok := idx.FindOffset(id)
	if !ok {
		t.Fatal("the tip's tree is not packed")
	}
	flipByte(t, path, off+4)
	advance(t, env, up, 1, "")
	if c := gittest.Exec(t, env, m, nil, "git", "remote", "update", "--prune"); c.Code == 0 {
		t.Fatalf("plain git's update passed over a broken tree")
	}
	c := runner(t, env, tree)
	l := runnerLine(t, c, m)
	if c.Code != 0 || !strings.Contains(l, " ok ") || !strings.Contains(l, "mended") {
		t.Fatalf("exit %d, %q", c.Code, l)
	}
	if a, b := refs(t, env, m), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
	gittest.Git(t, env, m, "fsck", "--full", "--strict")
}
