//go:build linux

package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// fetchPackLines are the lines git's fetch-pack adds after its child
// (unpack-objects or index-pack) failed; the helper is that child and
// fetch-pack at once, and prints the child's lines only.
var fetchPackLines = []string{"fatal: unpack-objects failed", "fatal: fetch-pack: invalid index-pack output", "fatal: index-pack failed"}

// withoutFetchPack returns the lines of stderr without fetchPackLines.
func withoutFetchPack(stderr []byte) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(stderr)), "\n") {
		if !contains(fetchPackLines, l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestLocalFailuresInGitsWords fetches into a repository that cannot take
// the objects — its objects directory not writable by the user, its
// filesystem full, its filesystem read-only — with plain git and through
// the helper, exploding (unpack-objects) and keeping (index-pack) the
// pack: the helper must say what git says (its unpack-objects or
// index-pack lines), exit 128, leave the refs and fsck clean, and record
// the same words in its stats, never "bad pack from": nothing was wrong
// with the pack.
func TestLocalFailuresInGitsWords(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: mounts tmpfs filesystems and runs git as another user")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("setpriv is not installed: ", err)
	}
	// Everything here must be reachable by the user "nobody": the
	// binaries, the upstream, HOME.
	work, err := os.MkdirTemp("", "git-durable-local-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	bin := filepath.Join(work, "bin")
	for _, name := range []string{"git-remote-durable", "git-unpack-durable"} {
		data, err := os.ReadFile(filepath.Join(binDir, name))
		if err != nil {
			t.Fatal(err)
		}
		gittest.WriteFile(t, bin, name, string(data))
	}
	home := filepath.Join(work, "home")
	gittest.WriteFile(t, home, ".gitconfig", "[safe]\n\tdirectory = *\n")
	env := gittest.Env(t, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GIT_DURABLE_FORCE_BATCH=1")
	up := newUpstream(t, env, work, "up.git")
	bigCommit(t, env, up, 24, 16<<10) // more than the full filesystem takes
	if err := filepath.Walk(work, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chmod(p, fi.Mode().Perm()|0o555)
	}); err != nil {
		t.Fatal(err)
	}
	// Over git:// (a path would do as well, but the helper then waits 10
	// seconds for the upload-pack it stopped reading from).
	url := fmt.Sprintf("git://127.0.0.1:%d/up.git", startDaemon(t, env, work))
	mnt, statsDir := filepath.Join(work, "mnt"), filepath.Join(work, "stats")
	for _, d := range []string{mnt, statsDir} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o777)
	}
	mounted := false
	t.Cleanup(func() {
		if mounted {
			exec.Command("umount", mnt).Run()
		}
	})

	for _, tc := range []struct {
		name   string
		size   string // of the tmpfs
		setup  func(repo string)
		nobody bool // run as nobody
		args   []string
	}{
		{"permission", "4m", func(repo string) { os.Chmod(filepath.Join(repo, "objects"), 0o555) }, true, nil},
		{"full", "200k", nil, false, nil},
		{"read-only", "4m", func(string) { mount(t, "-o", "remount,ro", mnt) }, false, []string{"--no-write-fetch-head"}},
	} {
		for _, limit := range []string{"100000", "1"} {
			name := tc.name + "/explode"
			if limit == "1" {
				name = tc.name + "/keep"
			}
			t.Run(name, func(t *testing.T) {
				var runs [2]*gittest.Cmd
				var stats [2]string
				for i, url := range []string{url, "durable::" + url} {
					mount(t, "-t", "tmpfs", "-o", "size="+tc.size+",mode=0777", "tmpfs", mnt)
					mounted = true
					repo := filepath.Join(mnt, "repo.git")
					gittest.Git(t, env, mnt, "init", "-q", "--bare", repo)
					os.Chmod(repo, 0o777)
					if tc.setup != nil {
						tc.setup(repo)
					}
					statsFile := filepath.Join(statsDir, fmt.Sprintf("%s-%s", tc.name, limit))
					os.Remove(statsFile)
					args := append([]string{"git", "-c", "fetch.unpackLimit=" + limit, "fetch", "-q"}, tc.args...)
					args = append(args, url, "main:refs/heads/main")
					if tc.nobody {
						args = append([]string{"--reuid=65534", "--regid=65534", "--clear-groups"}, args...)
					} else {
						args = append([]string{"--"}, args...)
					}
					runs[i] = gittest.Exec(t, append(env, "GIT_REMOTE_DURABLE_STATS="+statsFile), repo, nil, "setpriv", args...)
					if s := readStats(t, statsFile); len(s) > 0 {
						stats[i] = s[len(s)-1].Error
					}
					if refs := gittest.Exec(t, env, repo, nil, "git", "for-each-ref"); len(refs.Stdout) != 0 {
						t.Errorf("refs after the failure: %s", refs.Stdout)
					}
					gittest.Fsck(t, env, repo)
					umount(t, mnt)
					mounted = false
				}
				git, ours := runs[0], runs[1]
				if git.Code != 128 {
					t.Fatalf("plain git (the oracle) exit %d:\n%s", git.Code, git.Stderr)
				}
				want := withoutFetchPack(git.Stderr)
				if ours.Code != 128 || strings.TrimSpace(string(ours.Stderr)) != want {
					t.Errorf("exit %d\n%s\nwant 128 and git's lines\n%s", ours.Code, ours.Stderr, want)
				}
				var text []string
				for _, l := range strings.Split(want, "\n") {
					_, l, _ = strings.Cut(l, ": ") // "error: ", "fatal: "
					text = append(text, l)
				}
				if flat := strings.Join(text, ": "); stats[1] != flat {
					t.Errorf("stats error %q, want %q", stats[1], flat)
				}
			})
		}
	}
}

// TestInterruptNotBlamedOnUpstream interrupts the helper (SIGINT, as
// Ctrl-C does) while the upstream is half way through the pack: it must
// say "interrupted", on stderr and in its stats (the session's line, and
// the batch's where it had begun), and not blame the pack.
// git fetch starts with SIGINT at its default (withDispositions), whatever
// this test started with: git passes an ignored SIGINT on to the helper
// unless it put a handler of its own in its place first (git 2.39's fetch
// does, before it starts the helper).
func TestInterruptNotBlamedOnUpstream(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	dir := newUpstream(t, env, base, "up.git")
	tp := &tamper{next: httpBackend(t, env, base)}
	url := startHTTP(t, tp) + "/up.git"
	ours := filepath.Join(base, "ours")
	mustRun(t, gittest.Exec(t, env, "", nil, "git", "clone", "-q", "durable::"+url, ours), "clone")
	advance(t, env, dir, 3, "v300")
	before := refs(t, env, ours)

	tp.set("stall")
	stats := filepath.Join(t.TempDir(), "stats")
	fetch := exec.Command("git", "fetch")
	fetch.Dir, fetch.Env = ours, append(env, "GIT_REMOTE_DURABLE_STATS="+stats)
	withDispositions(t, fetch)
	var stderr bytes.Buffer
	fetch.Stderr = &stderr
	done := make(chan *gittest.Cmd, 1)
	go func() {
		fetch.Run()
		done <- &gittest.Cmd{Dir: ours, Env: fetch.Env, Stderr: stderr.Bytes(), Code: fetch.ProcessState.ExitCode()}
	}()
	select {
	case <-tp.stalled:
	case c := <-done:
		t.Fatalf("fetch ended before the stall: exit %d\n%s", c.Code, c.Stderr)
	case <-time.After(30 * time.Second):
		t.Fatal("the server never stalled")
	}
	if err := syscall.Kill(helperPid(t, ours), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var c *gittest.Cmd
	select {
	case c = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("git fetch did not end after the interrupt")
	}
	failed(t, env, c, ours, before, "fatal: interrupted")
	if strings.Contains(string(c.Stderr), "bad pack") {
		t.Errorf("an interrupt blamed on the upstream:\n%s", c.Stderr)
	}
	// The session's line says so; so does the batch's, where the helper
	// had begun it (the server wrote half the pack, but on a loaded
	// machine the helper may not have read any of it yet).
	if s := readSessions(t, stats); len(s) != 1 || s[0].Result != "failed" || s[0].Error != "interrupted" {
		t.Errorf("stats of the interrupted session: %+v, want failed, \"interrupted\"", s)
	}
	if s := readStats(t, stats); len(s) > 1 || len(s) == 1 && s[0].Error != "interrupted" {
		t.Errorf("stats of the interrupted batch: %+v, want the error \"interrupted\"", s)
	}
	if left := tempFiles(t, filepath.Join(ours, ".git")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func mount(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		t.Fatalf("mount %v: %v\n%s", args, err, out)
	}
}

func umount(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
		t.Fatalf("umount %s: %v\n%s", dir, err, out)
	}
}
