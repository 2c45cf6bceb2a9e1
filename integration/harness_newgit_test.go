package integration

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// newGitEnv is env with a git of at least major.minor first on PATH, after
// the built binaries (gittest.NewGit); the test is skipped, saying why,
// where there is none.
func newGitEnv(t *testing.T, major, minor int, extra ...string) []string {
	t.Helper()
	path := gittest.NewGit(t, major, minor)
	return env(t, append([]string{"PATH=" + binDir + string(os.PathListSeparator) + filepath.Dir(path) + string(os.PathListSeparator) + os.Getenv("PATH")}, extra...)...)
}
