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
// README, CHANGELOG and LICENSE, the systemd units and timers, the
// logrotate file and the alert rules the README's host recipe uses, and a
// SHA256SUMS that sha256sum checks.
// The archive is named after git describe of the checkout (a release tag
// only where the commit has one), and a second run gives the same bytes.
// The README's cron line runs the unpacked runner under cron's PATH,
// which holds neither binary: it finds its helper beside itself.
func TestMakeDist(t *testing.T) {
	for _, tool := range []string{"make", "tar", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	makeDist := func() string {
		dir := t.TempDir()
		cmd := exec.Command("make", "-s", "-C", "..", "dist", "DIST_TARGETS=linux/"+goarch(t), "DIST="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make dist: %v\n%s", err, out)
		}
		return dir
	}
	first, second := makeDist(), makeDist()
	if a, b := string(readFile(t, filepath.Join(first, "SHA256SUMS"))), string(readFile(t, filepath.Join(second, "SHA256SUMS"))); a != b {
		t.Errorf("two runs of make dist differ:\n%s\n%s", a, b)
	}
	describe, err := exec.Command("git", "-C", "..", "describe", "--tags", "--always", "--dirty").Output()
	if err != nil {
		t.Skip("the checkout has no git history to name the archive after: ", err)
	}
	name := "git-durable-" + strings.TrimSpace(string(describe)) + "-linux-" + goarch(t)
	dist := first
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = dist
	if out, err := check.CombinedOutput(); err != nil || !strings.Contains(string(out), name+".tar.gz: OK") {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
	x := t.TempDir()
	if out, err := exec.Command("tar", "-C", x, "-xzf", filepath.Join(dist, name+".tar.gz")).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	for _, f := range []string{"git-unpack-durable", "git-remote-durable", "git-unpack-durable.1", "git-remote-durable.1", "README.md", "CHANGELOG.md", "LICENSE",
		"docs/systemd/git-durable-mirrors.service", "docs/systemd/git-durable-mirrors.timer", "docs/systemd/git-durable-verify.service",
		"docs/systemd/git-durable-verify.timer", "docs/logrotate/git-durable", "docs/prometheus/git-durable.rules.yml"} {
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
	cronUpdates(t, filepath.Join(x, name))
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
