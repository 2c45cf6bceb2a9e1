package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestUsageAndVersion: -h prints the usage on stderr and exits 129, as git
// unpack-objects -h does; --version prints the version and exits 0.
func TestUsageAndVersion(t *testing.T) {
	env := env(t)
	repo := gittest.Init(t, env, true, "")
	git := gittest.Exec(t, env, repo, nil, "git", "unpack-objects", "-h")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string // prefix of stderr
		stdout string // prefix of stdout
	}{
		{"unpack -h", []string{"git", "unpack-durable", "-h"}, git.Code, "usage: git unpack-durable [-n] [-q] [-r] [--strict", ""},
		{"unpack bad option", []string{"git", "unpack-durable", "--bogus"}, 129, "usage: git unpack-durable", ""},
		{"unpack --version", []string{"git", "unpack-durable", "--version"}, 0, "", "git-unpack-durable version "},
		{"helper -h", []string{"git", "remote-durable", "-h"}, 129, "usage: git-remote-durable <remote> [<url>]", ""},
		{"helper --version", []string{"git", "remote-durable", "--version"}, 0, "", "git-remote-durable version "},
		{"helper --help", []string{filepath.Join(binDir, "git-remote-durable"), "--help"}, 0, "", "usage: git-remote-durable <remote> [<url>]"},
		{"runner -h", []string{filepath.Join(binDir, "git-remote-durable"), "--update-mirrors", "-h"}, 129, "usage: git-remote-durable --update-mirrors", ""},
		{"check -h", []string{filepath.Join(binDir, "git-remote-durable"), "--check", "-h"}, 129, "usage: git-remote-durable --check", ""},
	} {
		c := gittest.Exec(t, env, repo, nil, tc.args[0], tc.args[1:]...)
		if c.Code != tc.code || !strings.HasPrefix(string(c.Stderr), tc.stderr) || !strings.HasPrefix(string(c.Stdout), tc.stdout) ||
			tc.stderr == "" && len(c.Stderr) != 0 || tc.stdout == "" && len(c.Stdout) != 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d", tc.name, c.Code, c.Stdout, c.Stderr, tc.code)
		}
	}
	if git.Code != 129 {
		t.Errorf("git unpack-objects -h exited %d (the oracle moved?)", git.Code)
	}
	// The helper's -h and --help name every mode and the exit codes.
	for _, arg := range []string{"-h", "--help"} {
		c := gittest.Exec(t, env, repo, nil, filepath.Join(binDir, "git-remote-durable"), arg)
		for _, mode := range []string{"<remote> [<url>]", "--update-mirrors [<options>] <dir>...", "--check [<dir>...]", "--version", "Exit codes: 0"} {
			if !strings.Contains(string(c.Stdout)+string(c.Stderr), mode) {
				t.Errorf("git-remote-durable %s does not name %q:\n%s%s", arg, mode, c.Stdout, c.Stderr)
			}
		}
	}
	// -h lists every option the command takes.
	c := gittest.Exec(t, env, repo, nil, "git", "unpack-durable", "-h")
	for _, opt := range []string{"-n", "-q", "-r", "--strict", "--max-input-size=<n>", "--pack_header=", "--keep", "--unpack-limit=<n>", "--stats", "--version"} {
		if !strings.Contains(string(c.Stderr), "\n    "+opt) {
			t.Errorf("-h does not describe %s:\n%s", opt, c.Stderr)
		}
	}
}

// TestManPages installs with make install and reads both pages as git
// shows them: git help unpack-durable, git unpack-durable --help (which
// git turns into the same), git help remote-durable.
func TestManPages(t *testing.T) {
	for _, tool := range []string{"make", "man"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	prefix := t.TempDir()
	if out, err := makeInstall(t, prefix, t.TempDir()); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	env := env(t, "MANPATH="+filepath.Join(prefix, "share", "man"), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "unpack-durable"}, "git-unpack-durable - unpack objects from a packed archive, durably"},
		{[]string{"unpack-durable", "--help"}, "git-unpack-durable - unpack objects from a packed archive, durably"},
		{[]string{"help", "remote-durable"}, "git-remote-durable - a remote helper that writes fetched objects durably"},
	} {
		c := gittest.Exec(t, env, t.TempDir(), nil, "git", tc.args...)
		if c.Code != 0 || !strings.Contains(strings.Join(strings.Fields(string(c.Stdout)), " "), tc.want) {
			t.Errorf("git %v: exit %d\n%s%s", tc.args, c.Code, c.Stdout, c.Stderr)
		}
	}
}

// TestInstallDoesNotRebuild: make install after make uses the binaries
// built, without Go (GO=false stands for a root whose PATH has no Go); a
// binary older than its sources is rebuilt, and then Go is needed.
func TestInstallDoesNotRebuild(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed: ", err)
	}
	bin, prefix := t.TempDir(), t.TempDir()
	if out, err := makeInstall(t, prefix, bin); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	if out, err := makeInstall(t, t.TempDir(), bin, "GO=false"); err != nil {
		t.Fatalf("make install with the binaries up to date ran Go: %v\n%s", err, out)
	}
	old := time.Unix(1e9, 0)
	for _, name := range []string{"git-unpack-durable", "git-remote-durable"} {
		if err := os.Chtimes(filepath.Join(bin, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := makeInstall(t, t.TempDir(), bin, "GO=false"); err == nil {
		t.Fatalf("make install with binaries older than the sources did not rebuild them:\n%s", out)
	}
}

// secondsField is how "seconds" must look in a statistics line: to the
// millisecond, not 16 digits.
var secondsField = regexp.MustCompile(`"seconds":[0-9]+(\.[0-9]{1,3})?[,}]`)

// TestStatsLines checks the statistics both binaries write: seconds to
// the millisecond; a failed --keep reports nothing written (the pack was
// thrown away); a relative GIT_REMOTE_DURABLE_STATS is not silently
// ignored but warned about, once, and nothing is written anywhere.
func TestStatsLines(t *testing.T) {
	env := env(t)
	src := gittest.Init(t, env, true, "")
	gittest.History(t, env, src, 6, 5)
	pack := packOf(t, env, src, "main\n", "--revs")

	c := gittest.Exec(t, env, gittest.Init(t, env, true, ""), pack, "git", "unpack-durable", "--stats")
	if c.Code != 0 || !secondsField.Match(c.Stderr) {
		t.Errorf("unpack-durable --stats: exit %d\n%s", c.Code, c.Stderr)
	}

	// The pack without its last byte: every object is read (and would go
	// into the kept pack) before the trailer fails.
	repo := gittest.Init(t, env, true, "")
	c = gittest.Exec(t, env, repo, pack[:len(pack)-1], "git", "unpack-durable", "--keep", "--stats")
	if st := statsLine(t, c.Stderr); c.Code != 128 || st["written"] != 0.0 || st["pack"] != nil {
		t.Errorf("failed --keep: exit %d, stats %v; want 128 and nothing written", c.Code, st)
	}
	if packs, _ := filepath.Glob(filepath.Join(repo, "objects", "pack", "*")); len(packs) != 0 {
		t.Errorf("files left by the failed --keep: %v", packs)
	}

	work := t.TempDir()
	stats := filepath.Join(work, "stats")
	c = gittest.Exec(t, append(env, "GIT_REMOTE_DURABLE_STATS="+stats), work, nil, "git", "clone", "-q", "durable::"+src, "a")
	mustRun(t, c, "clone")
	if line, err := os.ReadFile(stats); err != nil || !secondsField.Match(line) {
		t.Errorf("stats file: %v\n%s", err, line)
	}
	c = gittest.Exec(t, append(env, "GIT_REMOTE_DURABLE_STATS=stats.jsonl"), work, nil, "git", "clone", "-q", "durable::"+src, "b")
	mustRun(t, c, "clone with a relative GIT_REMOTE_DURABLE_STATS")
	want := "warning: GIT_REMOTE_DURABLE_STATS='stats.jsonl' is ignored: set it to an absolute path"
	if n := strings.Count(string(c.Stderr), want); n != 1 {
		t.Errorf("%d warnings %q:\n%s", n, want, c.Stderr)
	}
	for _, dir := range []string{work, filepath.Join(work, "b"), filepath.Join(work, "b", ".git")} {
		if _, err := os.Stat(filepath.Join(dir, "stats.jsonl")); err == nil {
			t.Errorf("a relative GIT_REMOTE_DURABLE_STATS wrote %s", filepath.Join(dir, "stats.jsonl"))
		}
	}
}

// TestGoLine: go.mod's go line asks for no newer Go than the dependencies
// force on every build (go-git, x/sys: 1.26.0). A patch release there
// (it said 1.26.8, the machine's) makes a user of go1.26.0 download a
// toolchain or, with GOTOOLCHAIN=local, fail with "go.mod requires go >=
// 1.26.8"; patch releases add neither language features nor API, and go
// vet (stdversion) checks the line against the API the code uses.
func TestGoLine(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: ", err)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{if .Main}}main {{end}}{{.GoVersion}}", "all").Output()
	if err != nil {
		t.Fatal(err)
	}
	var main, deps string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if v, ok := strings.CutPrefix(l, "main "); ok {
			main = v
		} else if l != "" && versionLess(deps, l) {
			deps = l
		}
	}
	if main != deps {
		t.Errorf("go.mod says go %s; the dependencies need go %s", main, deps)
	}
}

// versionLess compares Go versions "1.26" < "1.26.0" < "1.26.8".
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}
