package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteFetchProcesses: what git commands a fetch runs, as git's trace
// (GIT_TRACE) names them. The helper checks the fetch's connectivity
// before git does only where it can still heal what the check would read
// broken: not after the sweep read every loose object whole — this
// session's, the first of a boot, or an earlier one's of the same boot, as
// its record says — for git runs its own check after every fetch: one
// check, not two. Where the sweep left an object broken (one the upstream
// does not have), the helper's check runs. The negotiation reads the refs
// from the files backend itself, and where the first round of tips (the
// old value of main) ends it, walks no history; the configuration, in its
// plainest form, is read without git config: no git process of its own.
func TestRemoteFetchProcesses(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	mirror := filepath.Join(base, "m.git")
	mustRun(t, gittest.Exec(t, env, base, nil, "git", "clone", "-q", "--mirror", "durable::file://"+up, mirror), "clone")
	checks := func(trace string) (helper, all int, cmds []string) {
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			_, cmd, ok := strings.Cut(l, "trace: built-in: git ")
			if !ok {
				continue
			}
			cmds = append(cmds, cmd)
			if strings.HasPrefix(cmd, "rev-list --objects --stdin") {
				all++
			}
		}
		// git's own check is the last git command of the fetch but for
		// its maintenance.
		return all - 1, all, cmds
	}
	for i, c := range []struct {
		name   string
		reboot bool
		checks int  // the helper's own connectivity checks
		broken bool // a loose object the upstream lacks, broken
	}{
		{"first session of a boot", true, 0, false},
		{"later session", false, 0, false},
		{"an object left broken", true, 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.reboot {
				rebooted(t, mirror)
			}
			if c.broken {
				orphan := strings.TrimSpace(string(gittest.GitIn(t, env, mirror, []byte("only here\n"), "hash-object", "-w", "--stdin")))
				breakObject(t, mirror, orphan, "truncated")
				defer os.Remove(objectFile(mirror, orphan))
			}
			advance(t, env, up, 2, "")
			trace := filepath.Join(t.TempDir(), "trace")
			mustRun(t, gittest.Exec(t, append(env, "GIT_TRACE="+trace), mirror, nil, "git", "fetch", "-q"), "fetch")
			helper, all, cmds := checks(trace)
			if all < 1 || helper != c.checks {
				t.Errorf("fetch %d: %d connectivity checks of the helper's, want %d; git commands:\n%s", i, helper, c.checks, strings.Join(cmds, "\n"))
			}
			// The refs are read from the files backend, not by git; the
			// old value of main ends the negotiation: no walk. The
			// configuration, plain, is read without git too.
			for _, cmd := range cmds {
				if strings.HasPrefix(cmd, "for-each-ref") || strings.HasPrefix(cmd, "config") ||
					strings.HasPrefix(cmd, "rev-list") && !strings.Contains(cmd, "--objects") {
					t.Errorf("the helper ran git %s", cmd)
				}
			}
		})
	}
	gittest.Fsck(t, env, mirror)
}
