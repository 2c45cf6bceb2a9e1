//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/cli"
)

// TestMakeDist: make dist builds, for a target, an archive of static
// binaries that say the release with --version, with the man pages,
// README, CHANGELOG and LICENSE, and a SHA256SUMS that sha256sum checks.
func TestMakeDist(t *testing.T) {
	for _, tool := range []string{"make", "tar", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	dist := t.TempDir()
	cmd := exec.Command("make", "-s", "-C", "..", "dist", "DIST_TARGETS=linux/"+goarch(t), "DIST="+dist)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	}
	name := "git-durable-v" + cli.Release + "-linux-" + goarch(t)
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = dist
	if out, err := check.CombinedOutput(); err != nil || !strings.Contains(string(out), name+".tar.gz: OK") {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
	x := t.TempDir()
	if out, err := exec.Command("tar", "-C", x, "-xzf", filepath.Join(dist, name+".tar.gz")).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	for _, f := range []string{"git-unpack-durable", "git-remote-durable", "git-unpack-durable.1", "git-remote-durable.1", "README.md", "CHANGELOG.md", "LICENSE"} {
		if _, err := os.Stat(filepath.Join(x, name, f)); err != nil {
			t.Errorf("the archive lacks %s: %v", f, err)
		}
	}
	for _, c := range []string{"git-unpack-durable", "git-remote-durable"} {
		bin := filepath.Join(x, name, c)
		out, err := exec.Command(bin, "--version").Output()
		if err != nil || !strings.HasPrefix(string(out), c+" version v"+cli.Release) {
			t.Errorf("%s --version: %v %q", c, err, out)
		}
		if out, _ := exec.Command("ldd", bin).CombinedOutput(); !strings.Contains(string(out), "not a dynamic executable") {
			t.Errorf("%s is not static: %s", c, out)
		}
	}
}

// goarch is the architecture the tests run on, as go env says it.
func goarch(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOARCH").Output()
	if err != nil {
		t.Skip("go is not on PATH: ", err)
	}
	return strings.TrimSpace(string(out))
}
