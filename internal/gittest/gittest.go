// Package gittest runs real git for tests in a sealed environment: a private
// HOME, no system config, no prompts, fixed identities and dates.
package gittest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Env returns the sealed environment for a test: os.Environ() without any
// GIT_* variable, the machine's proxies (unsealed: see unsealed), plus a
// temporary HOME (whose .gitconfig keeps automatic maintenance in the
// foreground) and fixed author data. extra entries ("K=V") are appended.
func Env(t testing.TB, extra ...string) []string {
	t.Helper()
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") || unsealed(kv) {
			continue
		}
		env = append(env, kv)
	}
	// Automatic maintenance in the foreground: git 2.55 detaches it and
	// repacks in the background while a test reads or removes the
	// repository (maintenance.autoDetach; gc.autoDetach for older git).
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[maintenance]\n\tautoDetach = false\n[gc]\n\tautoDetach = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env = append(env,
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=A U Thor", "GIT_AUTHOR_EMAIL=author@example.com",
		"GIT_COMMITTER_NAME=C O Mitter", "GIT_COMMITTER_EMAIL=committer@example.com",
		"GIT_AUTHOR_DATE=1700000000 +0000", "GIT_COMMITTER_DATE=1700000000 +0000",
		"LC_ALL=C",
	)
	return append(env, extra...)
}

// unsealed reports whether kv is a variable of the machine's that would
// reach past the sealed environment: the proxies (http_proxy and the
// like), which git's curl and the helper, as git does, use also for
// 127.0.0.1, where the tests' servers listen; and SSH_ASKPASS, which git
// runs for a username or password before it gives up (a desktop's
// ksshaskpass opens a window).
func unsealed(kv string) bool {
	k, _, _ := strings.Cut(kv, "=")
	switch strings.ToLower(k) {
	case "http_proxy", "https_proxy", "all_proxy", "no_proxy", "ssh_askpass", "ssh_askpass_require":
		return true
	}
	return false
}

// Need skips the test when git is not installed.
func Need(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: ", err)
	}
}

// Cmd describes one command run.
type Cmd struct {
	Dir    string
	Env    []string
	Stdin  []byte
	Stdout []byte
	Stderr []byte
	Code   int
}

// Exec runs name with args in dir and returns what happened; it fails the
// test only when the program cannot be started.
func Exec(t testing.TB, env []string, dir string, stdin []byte, name string, args ...string) *Cmd {
	t.Helper()
	c := exec.Command(lookPath(name, env), args...)
	c.Dir, c.Env = dir, env
	if stdin != nil {
		c.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := c.Run()
	res := &Cmd{Dir: dir, Env: env, Stdin: stdin, Stdout: out.Bytes(), Stderr: errb.Bytes()}
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		res.Code = ee.ExitCode()
	}
	return res
}

// Git runs git in dir and fails the test unless it exits 0; it returns
// stdout.
func Git(t testing.TB, env []string, dir string, args ...string) string {
	t.Helper()
	return string(GitIn(t, env, dir, nil, args...))
}

// GitIn is Git with stdin.
func GitIn(t testing.TB, env []string, dir string, stdin []byte, args ...string) []byte {
	t.Helper()
	c := Exec(t, env, dir, stdin, "git", args...)
	if c.Code != 0 {
		t.Fatalf("git %s: exit %d\n%s", strings.Join(args, " "), c.Code, c.Stderr)
	}
	return c.Stdout
}

// Init creates a repository (bare when bare is true) in a new temporary
// directory with the given object format ("" for git's default).
func Init(t testing.TB, env []string, bare bool, format string) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"init", "-q", "-b", "main"}
	if bare {
		args = append(args, "--bare")
	}
	if format != "" {
		args = append(args, "--object-format="+format)
	}
	Git(t, env, dir, append(args, dir)...)
	return dir
}

// WriteFile writes a file below dir, creating directories.
func WriteFile(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

// Objects returns `git cat-file --batch-all-objects --batch-check` of the
// repository in dir: one "<id> <type> <size>" line per object, sorted.
func Objects(t testing.TB, env []string, dir string) string {
	t.Helper()
	return Git(t, env, dir, "cat-file", "--batch-all-objects", "--batch-check")
}

// Fsck runs `git fsck --strict` in dir and fails the test on any complaint.
func Fsck(t testing.TB, env []string, dir string) {
	t.Helper()
	c := Exec(t, env, dir, nil, "git", "fsck", "--strict", "--no-dangling")
	complaints := false
	for _, line := range strings.Split(string(c.Stderr), "\n") {
		if line != "" && !strings.HasPrefix(line, "notice:") {
			complaints = true
		}
	}
	if c.Code != 0 || complaints {
		t.Fatalf("git fsck --strict in %s: exit %d\n%s%s", dir, c.Code, c.Stdout, c.Stderr)
	}
}

// Tick returns an environment for commit number i with distinct dates.
func Tick(env []string, i int) []string {
	d := fmt.Sprintf("%d +0000", 1700000000+i*60)
	return append(append([]string{}, env...), "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
}

// Sealed sets this process's environment to Env's (for the git that the
// code under test runs itself), with extra entries and GIT_DIR set to
// gitDir, or unset when it is empty, and returns Env's list for the
// commands of the test. PATH stays the process's.
func Sealed(t *testing.T, gitDir string, extra ...string) []string {
	t.Helper()
	Need(t)
	env := Env(t, extra...)
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k != "PATH" {
			t.Setenv(k, v)
		}
	}
	t.Setenv("GIT_DIR", gitDir)
	if gitDir == "" {
		os.Unsetenv("GIT_DIR")
	}
	return env
}

// Advertisement is a protocol v0 ref advertisement: each line a pkt-line,
// then a flush.
func Advertisement(lines ...string) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		fmt.Fprintf(&b, "%04x%s", len(l)+4, l)
	}
	b.WriteString("0000")
	return b.Bytes()
}

// lookPath finds name as a shell started with env would: in the
// directories of env's PATH (the test process's own where env sets none),
// so that a test's environment chooses its git.
func lookPath(name string, env []string) string {
	if strings.ContainsRune(name, filepath.Separator) {
		return name
	}
	for i := len(env) - 1; i >= 0; i-- {
		if path, ok := strings.CutPrefix(env[i], "PATH="); ok {
			for _, d := range filepath.SplitList(path) {
				p := filepath.Join(d, name)
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
					return p
				}
			}
			break
		}
	}
	return name
}
