package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// newGitDefault is where .ci/run builds Debian 13's git (2.47.3) when the
// machine's is older than the features a test needs (reftable: 2.45).
const newGitDefault = "/opt/git-2.47/bin/git"

// newGitEnv is env with a git of at least major.minor first on PATH, after
// the built binaries: GIT_DURABLE_NEW_GIT names it, else newGitDefault,
// else the machine's git where it is new enough. The test is skipped,
// saying why, where there is none.
func newGitEnv(t *testing.T, major, minor int, extra ...string) []string {
	t.Helper()
	for _, g := range []string{os.Getenv("GIT_DURABLE_NEW_GIT"), newGitDefault, "git"} {
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
			return env(t, append([]string{"PATH=" + binDir + string(os.PathListSeparator) + filepath.Dir(path) + string(os.PathListSeparator) + os.Getenv("PATH")}, extra...)...)
		}
	}
	t.Skipf("no git %d.%d or newer: .ci/run builds one into %s (or set GIT_DURABLE_NEW_GIT)", major, minor, filepath.Dir(filepath.Dir(newGitDefault)))
	return nil
}
