package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestHostilePromisorAdvert: a protocol v2 server that advertises promisor
// remotes ("promisor-remote", git 2.49's promisor.advertise). With git's
// default (promisor.acceptFromServer unset: none accepted) the fetch
// through the helper says nothing, as plain git says nothing; where the
// configuration would accept them, the helper says in one line that it
// does not, and fetches every object from the upstream. The refs are
// plain git's either way. (Before: dropped without a word.)
func TestHostilePromisorAdvert(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 1, "pr1")
	d := startHostile(t, env, up, lie{v2: true, caps2: func(lines []string) []string {
		return append(lines, "promisor-remote=name=lop,url=https%3A%2F%2Flop.example%2Frepo.git;name=other%20one,url=file%3A%2F%2F%2Fsrv%2Fo.git\n")
	}})
	var got [2]string
	for _, accept := range []string{"", "All"} {
		for i, side := range hostileSides {
			dst := filepath.Join(t.TempDir(), "m.git")
			gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
			args := []string{"-c", "protocol.version=2"}
			if accept != "" {
				args = append(args, "-c", "promisor.acceptFromServer="+accept)
			}
			c := gittest.Exec(t, env, dst, nil, "git", append(args, "fetch", "-q", side.prefix+d.url, "+refs/*:refs/*")...)
			mustRun(t, c, side.name+" fetch")
			got[i] = refs(t, env, dst)
			stderr := string(c.Stderr)
			switch {
			case side.name == "git" && stderr != "":
				t.Errorf("plain git, accept %q: %q", accept, stderr)
			case side.name == "durable" && accept == "" && stderr != "":
				t.Errorf("the helper, by default: %q", stderr)
			case side.name == "durable" && accept != "" && (strings.Count(stderr, "\n") != 1 ||
				!strings.Contains(stderr, "warning: durable: the promisor remotes 'lop', 'other one' that '") ||
				!strings.Contains(stderr, "are not accepted through durable:: (promisor.acceptFromServer=All)")):
				t.Errorf("the helper, accepting: %q", stderr)
			}
		}
		if got[0] != got[1] || !strings.Contains(got[1], "refs/tags/pr1") {
			t.Errorf("accept %q: refs through the helper\n%s\nplain git's\n%s", accept, got[1], got[0])
		}
	}
}
