// Package integration builds the project's binaries and drives them with
// real git in a sealed environment; stock git run on the same input is the
// oracle.
//
// Parallel tests: a test that only starts servers of its own (on loopback,
// stopped by its cleanup) in its own temporary directories, and measures no
// time, memory or system calls, calls t.Parallel: the protocol tables (deepen,
// SHA-256, partial clone, heal) take minutes each, most of it spent
// waiting on git processes. A test that measures, kills or traces stays
// serial, and so runs alone.
package integration

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// binDir holds the binaries built for this test run.
var binDir string

func TestMain(m *testing.M) {
	if code, ok := wrapped(); ok {
		os.Exit(code) // this binary ran a command as another user
	}
	if code, ok := dispositionsWrapped(); ok {
		os.Exit(code) // this binary ran a command with the signal dispositions a test set
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	setUmask() // before the binaries are built: others must be able to execute them
	dir, err := os.MkdirTemp("", "git-durable-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	for name, pkg := range map[string]string{"git-unpack-durable": "./cmd/git-unpack-durable", "git-remote-durable": "./cmd/git-remote-durable"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", name, err, out)
			return 1
		}
	}
	binDir = dir
	return m.Run()
}

// env is the sealed environment with the built binaries first on PATH. It
// sets GIT_DURABLE_FORCE_BATCH: most tests check the batch scheme's system
// calls and results in temporary directories, whose filesystem (on CI, an
// ext4 without a journal) may not make that scheme sound — the binaries
// would fall back to fsync there. What real filesystems do with the scheme
// is proven by the block-level tests, which use realEnv.
func env(t testing.TB, extra ...string) []string {
	t.Helper()
	return realEnv(t, append([]string{"GIT_DURABLE_FORCE_BATCH=1"}, extra...)...)
}

// realEnv is env without GIT_DURABLE_FORCE_BATCH: the binaries choose the
// sync path for the filesystem they find.
func realEnv(t testing.TB, extra ...string) []string {
	t.Helper()
	gittest.Need(t)
	return gittest.Env(t, append([]string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")}, extra...)...)
}

// result is one unpack run.
type result struct {
	repo string
	*gittest.Cmd
}

// lastLine returns the last line of stderr.
func (r result) lastLine() string { return lastLine(string(r.Stderr)) }

// unpackInto runs `git <cmd> args…` with pack on stdin in repo.
func unpackInto(t testing.TB, env []string, repo, cmd string, pack []byte, args ...string) result {
	t.Helper()
	return result{repo, gittest.Exec(t, env, repo, pack, "git", append([]string{cmd}, args...)...)}
}

// both unpacks pack into two fresh bare repositories of format, one with
// git unpack-objects and one with ours, with the same arguments; setup, if
// set, prepares each repository first.
func both(t testing.TB, env []string, format string, pack []byte, setup func(repo string), args ...string) (git, ours result) {
	t.Helper()
	for i, cmd := range []string{"unpack-objects", "unpack-durable"} {
		repo := gittest.Init(t, env, true, format)
		if setup != nil {
			setup(repo)
		}
		r := unpackInto(t, env, repo, cmd, pack, args...)
		if i == 0 {
			git = r
		} else {
			ours = r
		}
	}
	return git, ours
}

// sameObjects fails unless both repositories hold the same objects, and
// checks ours with fsck --strict and that it holds no pack.
func sameObjects(t testing.TB, env []string, git, ours result) {
	t.Helper()
	want, got := gittest.Objects(t, env, git.repo), gittest.Objects(t, env, ours.repo)
	if want != got {
		t.Fatalf("objects differ:\ngit  %d lines\nours %d lines\n%s", strings.Count(want, "\n"), strings.Count(got, "\n"), firstDiff(want, got))
	}
	gittest.Fsck(t, env, ours.repo)
	if packs, _ := filepath.Glob(filepath.Join(ours.repo, "objects/pack/*.pack")); len(packs) != 0 {
		t.Fatalf("packs were written: %v", packs)
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: git %q, ours %q", i, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(al), len(bl))
}

// statsLine returns the --stats JSON line of stderr.
func statsLine(t *testing.T, stderr []byte) map[string]any {
	t.Helper()
	for _, line := range strings.Split(string(stderr), "\n") {
		if strings.HasPrefix(line, "{") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("stats line %q: %v", line, err)
			}
			return m
		}
	}
	t.Fatalf("no stats line in\n%s", stderr)
	return nil
}

// tempFiles returns the files below dir whose names say they are
// temporary: the unpacker's tmp_obj_*, tmp_pack_*, tmp_spill_* (and git's
// own tmp_*), and the incoming-* quarantine of a receive-pack.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (strings.HasPrefix(d.Name(), "tmp_") || strings.HasPrefix(d.Name(), "incoming-")) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// mustRun fails unless the command exited 0 without a fatal line.
func mustRun(t *testing.T, c *gittest.Cmd, what string) {
	t.Helper()
	if c.Code != 0 || strings.Contains(string(c.Stderr), "fatal:") {
		t.Fatalf("%s: exit %d\n%s", what, c.Code, c.Stderr)
	}
}

// sortedLines sorts the lines of s.
func sortedLines(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	sort.Strings(l)
	return strings.Join(l, "\n")
}

// lineWith is the first line of s that begins with prefix, or "".
func lineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// lastLine returns the last line of s, a command's output.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// readFile returns the content of the file path, or fails the test.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// contains reports whether s is in list.
func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sealedHTTP is env without any proxy variable of the machine's.
func sealedHTTP(t *testing.T, extra ...string) []string {
	t.Helper()
	var out []string
	for _, kv := range env(t) {
		if k, _, _ := strings.Cut(kv, "="); !strings.Contains(strings.ToLower(k), "proxy") {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// fetchInto runs `git fetch` (tags followed) of url into a new repository
// at dir, through the helper when durable.
func fetchInto(t *testing.T, env []string, dir, url string, durable bool, follow string) *gittest.Cmd {
	t.Helper()
	gittest.Git(t, env, "", "init", "-q", "-b", "main", dir)
	if durable {
		url = "durable::" + url
	}
	gittest.Git(t, env, dir, "remote", "add", "origin", url)
	args := []string{"fetch", "origin"}
	if follow != "" {
		args = append([]string{"-c", "http.followRedirects=" + follow}, args...)
	}
	return gittest.Exec(t, env, dir, nil, "git", args...)
}

// hostileSide is one client of a hostile upstream: plain git on git://…,
// the oracle, or git through git-remote-durable.
type hostileSide struct {
	name   string
	prefix string
}

// hostileSides are both clients, plain git first.
var hostileSides = []hostileSide{{"git", ""}, {"durable", "durable::"}}
