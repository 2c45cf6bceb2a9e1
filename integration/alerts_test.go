//go:build !windows

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestAlertRules: the alert rules shipped for the runner's metrics
// (docs/prometheus) are valid for promtool, pass their own unit tests,
// each alert fires in at least one of them, and every series they read is
// one the runner writes — in the metrics of an update and of a --verify
// of a mirror.
func TestAlertRules(t *testing.T) {
	const dir = "../docs/prometheus"
	rules, err := os.ReadFile(filepath.Join(dir, "git-durable.rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	tests, err := os.ReadFile(filepath.Join(dir, "git-durable.rules.test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	alerts := regexp.MustCompile(`(?m)^\s+- alert: (\S+)$`).FindAllSubmatch(rules, -1)
	if len(alerts) < 6 {
		t.Fatalf("%d alerts", len(alerts))
	}
	for _, a := range alerts {
		fires := regexp.MustCompile(`alertname: ` + string(a[1]) + `\n\s+exp_alerts:\n\s+- exp_labels:`)
		if !fires.Match(tests) {
			t.Errorf("no test where %s fires", a[1])
		}
	}

	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, filepath.Join(tree, "m.git"))
	update, verify := filepath.Join(base, "update.prom"), filepath.Join(base, "verify.prom")
	mustRun(t, runner(t, env, "--metrics", update, tree), "update")
	mustRun(t, verifier(t, env, "--metrics", verify, tree), "verify")
	written := string(readFile(t, update)) + string(readFile(t, verify))
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`git_durable_[a-z_]+`).FindAllString(string(rules), -1) {
		if !seen[m] && !strings.Contains(written, "\n"+m+"{") {
			t.Errorf("the rules read %s, which the runner does not write", m)
		}
		seen[m] = true
	}

	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian: apt-get install prometheus): the rules not checked with it")
	}
	for _, args := range [][]string{{"check", "rules", "git-durable.rules.yml"}, {"test", "rules", "git-durable.rules.test.yml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "SUCCESS") {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
