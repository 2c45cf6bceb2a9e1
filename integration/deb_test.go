package integration

import (
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// debPackages are the files the package installs that the test checks,
// beside the binaries.
var debPackages = []string{
	"/usr/share/man/man1/git-remote-durable.1.gz", "/usr/share/man/man1/git-unpack-durable.1.gz",
	"/lib/systemd/system/git-durable-mirrors.service", "/lib/systemd/system/git-durable-mirrors.timer",
	"/lib/systemd/system/git-durable-verify.service", "/lib/systemd/system/git-durable-verify.timer",
	"/etc/logrotate.d/git-durable", "/usr/share/git-durable/prometheus/git-durable.rules.yml",
}

// makeDeb builds the package into a temporary directory and returns its
// path.
func makeDeb(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("make", "-s", "-C", "..", "deb", "DIST="+dir).CombinedOutput()
	if err != nil {
		t.Fatalf("make deb: %v\n%s", err, out)
	}
	debs, _ := filepath.Glob(filepath.Join(dir, "git-durable_*.deb"))
	if len(debs) != 1 {
		t.Fatalf("make deb made %v\n%s", debs, out)
	}
	return debs[0]
}

// TestDebianPackage: make deb builds, with dpkg-deb, the same bytes twice;
// apt-get installs it on this Debian host: both binaries in /usr/bin and
// linked into git's exec-path (git finds the helper there), the man pages,
// the units and timers (running /usr/bin's runner, valid for
// systemd-analyze), the logrotate file, the alert rules and the system
// user git, which then keeps a mirror through durable:: and updates it
// with the installed runner; dpkg -r removes what it installed but the
// logrotate file (a conffile), dpkg --purge that too, and the mirror, its
// user and the user's home are kept.
func TestDebianPackage(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("installing a package needs root")
	}
	for _, tool := range []string{"dpkg-deb", "apt-get", "dpkg", "make", "runuser"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	for _, f := range []string{"/usr/bin/git-remote-durable", "/usr/local/bin/git-remote-durable"} {
		if _, err := os.Lstat(f); err == nil {
			if out, _ := exec.Command("dpkg", "-S", f).CombinedOutput(); !strings.HasPrefix(string(out), "git-durable:") {
				t.Skipf("%s is there and not the package's: the host's own install is left alone", f)
			}
		}
	}
	deb := makeDeb(t)
	if a, b := fileSum(t, deb), fileSum(t, makeDeb(t)); a != b {
		t.Errorf("two builds of make deb differ")
	}
	run := func(what string, args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() { exec.Command("dpkg", "--purge", "git-durable").Run() })
	run("apt-get install", "apt-get", "install", "-y", "-q", "--no-install-recommends", deb)

	for _, c := range []string{"git-remote-durable", "git-unpack-durable"} {
		if out := run(c+" --version", "/usr/bin/"+c, "--version"); !strings.HasPrefix(out, c+" version v") {
			t.Errorf("%s --version: %q", c, out)
		}
		execPath := strings.TrimSpace(run("git --exec-path", "git", "--exec-path"))
		if to, err := filepath.EvalSymlinks(filepath.Join(execPath, c)); err != nil || to != "/usr/bin/"+c {
			t.Errorf("%s in git's exec-path: %q, %v", c, to, err)
		}
	}
	for _, f := range debPackages {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("not installed: %v", err)
		}
	}
	unit := string(readFile(t, "/lib/systemd/system/git-durable-mirrors.service"))
	if !strings.Contains(unit, "ExecStart=/usr/bin/git-remote-durable --update-mirrors") || strings.Contains(unit, "/usr/local") {
		t.Errorf("the unit runs another runner:\n%s", unit)
	}
	if p, err := exec.LookPath("systemd-analyze"); err == nil {
		for _, u := range []string{"git-durable-mirrors.service", "git-durable-mirrors.timer", "git-durable-verify.service", "git-durable-verify.timer"} {
			if out, err := exec.Command(p, "verify", "/lib/systemd/system/"+u).CombinedOutput(); err != nil {
				t.Errorf("systemd-analyze verify %s: %v\n%s", u, err, out)
			}
		}
	}
	home := strings.Split(strings.TrimSpace(run("getent", "getent", "passwd", "git")), ":")
	if len(home) < 6 || !strings.HasPrefix(home[5], "/") {
		t.Fatalf("the user git: %q", home)
	}

	// The user git keeps a mirror through durable:: and the installed
	// runner updates it.
	env := gittest.Env(t)
	upstreams := t.TempDir()
	up := newUpstream(t, env, upstreams, "up.git")
	tree := t.TempDir()
	for _, d := range []string{upstreams, tree, filepath.Dir(tree)} {
		os.Chmod(d, 0o755)
	}
	gitOwns(t, up)
	if out, err := exec.Command("chown", "git:git", tree).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v\n%s", err, out)
	}
	m := filepath.Join(tree, "m.git")
	asGit := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("runuser", append([]string{"-u", "git", "--"}, args...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home[5], "GIT_CONFIG_NOSYSTEM=1"}
		cmd.Dir = tree
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("as git, %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	asGit("git", "clone", "-q", "--mirror", "durable::file://"+up, m)
	gittest.Git(t, env, "", "config", "--global", "--add", "safe.directory", "*") // root's git reads git's repositories
	advance(t, env, up, 1, "deb1")
	gitOwns(t, up)
	if out := asGit("/usr/bin/git-remote-durable", "--update-mirrors", tree); !strings.Contains(out, m+" ok ") {
		t.Errorf("the installed runner:\n%s", out)
	}
	if a, b := refs(t, env, m), refs(t, env, up); a != b {
		t.Errorf("the mirror\n%s\nthe upstream\n%s", a, b)
	}

	run("dpkg -r", "dpkg", "-r", "git-durable")
	for _, f := range append(debPackages, "/usr/bin/git-remote-durable", "/usr/bin/git-unpack-durable") {
		_, err := os.Lstat(f)
		if kept := f == "/etc/logrotate.d/git-durable"; kept != (err == nil) {
			t.Errorf("after dpkg -r, %s: %v", f, err)
		}
	}
	run("dpkg --purge", "dpkg", "--purge", "git-durable")
	if _, err := os.Lstat("/etc/logrotate.d/git-durable"); err == nil {
		t.Error("dpkg --purge left the logrotate file")
	}
	if _, err := os.Stat(filepath.Join(m, "objects")); err != nil {
		t.Errorf("the mirror after the purge: %v", err)
	}
	run("the user git after the purge", "getent", "passwd", "git")
}

// fileSum is the SHA-256 of the file path, in hex.
func fileSum(t *testing.T, path string) string {
	t.Helper()
	sum := sha256.Sum256(readFile(t, path))
	return string(sum[:])
}

// gitOwns gives the tree dir to the user git (git refuses to serve or
// fetch from a repository another user owns).
func gitOwns(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("chown", "-R", "git:git", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v\n%s", err, out)
	}
}
