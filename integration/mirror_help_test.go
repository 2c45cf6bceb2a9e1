package integration

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestVerifyHelp: --verify -h prints the verification's own help — what it
// checks, what it prints, its exit codes, --rate's default — where it
// printed the updates'; --update-mirrors -h still prints the updates'.
// Both exit 129, as git's -h.
func TestVerifyHelp(t *testing.T) {
	env := env(t)
	bin := filepath.Join(binDir, "git-remote-durable")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--verify", "-h"}, []string{"usage: git-remote-durable --verify [<options>] <dir>...", "git fsck --full", "Exit 0 when", "--rate <bytes>", "(default: as fast as they come"}},
		{[]string{"--update-mirrors", "--verify", "-h"}, []string{"usage: git-remote-durable --verify [<options>] <dir>..."}},
		{[]string{"--update-mirrors", "-h"}, []string{"usage: git-remote-durable --update-mirrors [<options>] <dir>...", "git remote update"}},
	} {
		c := gittest.Exec(t, env, "", nil, bin, tc.args...)
		for _, w := range tc.want {
			if c.Code != 129 || !strings.Contains(string(c.Stderr), w) {
				t.Errorf("%v: exit %d, no %q in\n%s", tc.args, c.Code, w, c.Stderr)
			}
		}
	}
}

// TestManPageNumbers: the man page's unpack limit is the one the helper
// uses (--check says it).
func TestManPageNumbers(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	m := filepath.Join(base, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "durable::file://"+up, m)
	c := gittest.Exec(t, env, m, nil, filepath.Join(binDir, "git-remote-durable"), "--check")
	limit := regexp.MustCompile(`unpack limit +(\d+):`).FindStringSubmatch(string(c.Stdout))
	man := regexp.MustCompile(`A fetch of (\d+) objects or more`).FindStringSubmatch(string(readFile(t, "../docs/git-remote-durable.1")))
	if limit == nil || man == nil || limit[1] != man[1] {
		t.Errorf("--check's unpack limit %v, the man page's %v\n%s", limit, man, c.Stdout)
	}
}
