package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// NewGitDefault is where .ci/run builds Debian 13's git (2.47.3) when the
// machine's is older than the features a test needs (reftable: 2.45).
const NewGitDefault = "/opt/git-2.47/bin/git"

// NewGit returns the path of a git of at least major.minor:
// GIT_DURABLE_NEW_GIT names it, else NewGitDefault, else the machine's git
// where it is new enough. The test is skipped, saying why, where there is
// none.
func NewGit(t testing.TB, major, minor int) string {
	t.Helper()
	for _, g := range []string{os.Getenv("GIT_DURABLE_NEW_GIT"), NewGitDefault, "git"} {
		if g == "" {
			continue
		}
		path, err := exec.LookPath(g)
		if err != nil {
			continue
		}
		out, err := exec.Command(path, "--version").Output()
		if err != nil {
			continue
		}
		m := regexp.MustCompile(`git version (\d+)\.(\d+)`).FindSubmatch(out)
		if m == nil {
			continue
		}
		maj, _ := strconv.Atoi(string(m[1]))
		mn, _ := strconv.Atoi(string(m[2]))
		if maj > major || maj == major && mn >= minor {
			return path
		}
	}
	t.Skipf("no git %d.%d or newer: .ci/run builds one into %s (or set GIT_DURABLE_NEW_GIT)", major, minor, filepath.Dir(filepath.Dir(NewGitDefault)))
	return ""
}
