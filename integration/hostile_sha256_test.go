package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestHostileSHA256IDs: a SHA-256 upstream that sends an id of SHA-1's
// length — on a ref line of the v0 advertisement (the first, with the
// capabilities, or a later one), on a shallow line after it, on a ref or
// a peeled tag of an ls-refs answer, on a shallow line of a v2 answer to
// fetch — fails ls-remote or the fetch through the helper as it fails
// plain git on the same server: the same exit code and last line, and a
// fetch writes no ref.
func TestHostileSHA256IDs(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstreamOf(t, env, base, "up.git", "sha256", 6, 12)
	short := func(line string) string { return line[:40] + line[64:] } // "<id> rest" with a SHA-1-long id
	for _, tc := range []struct {
		name  string
		lie   lie
		fetch bool // a fetch into a SHA-256 repository, not ls-remote
	}{
		{"v0 first line", lie{adv: func(p []string) []string { p[0] = short(p[0]); return p }}, false},
		{"v0 ref", lie{adv: func(p []string) []string { p[1] = short(p[1]); return p }}, false},
		{"v0 shallow", lie{adv: func(p []string) []string {
			return append(p, "shallow "+p[1][:40]+"\n")
		}}, false},
		{"v2 ref", lie{v2: true, lsRefs: func(l []string) []string { l[0] = short(l[0]); return l }}, false},
		{"v2 peeled", lie{v2: true, lsRefs: func(l []string) []string {
			for i, line := range l {
				if at := strings.Index(line, " peeled:"); at > 0 {
					l[i] = line[:at+len(" peeled:")+40] + "\n"
				}
			}
			return l
		}}, false},
		{"v2 shallow-info", lie{v2: true, resp: inSection("shallow-info\n", "shallow "+strings.Repeat("1", 40)+"\n")}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startHostile(t, env, up, tc.lie)
			var last [2]string
			var codes [2]int
			for i, side := range hostileSides {
				var c *gittest.Cmd
				if tc.fetch {
					dst := gittest.Init(t, env, true, "sha256")
					c = gittest.Exec(t, env, dst, nil, "git", "fetch", side.prefix+d.url, "+refs/heads/*:refs/heads/*")
					if got := gittest.Git(t, env, dst, "for-each-ref"); got != "" {
						t.Errorf("%s: refs written:\n%s", side.name, got)
					}
				} else {
					c = gittest.Exec(t, env, filepath.Dir(up), nil, "git", "ls-remote", side.prefix+d.url)
					if len(c.Stdout) != 0 {
						t.Errorf("%s: listed\n%s", side.name, c.Stdout)
					}
				}
				last[i], codes[i] = result{Cmd: c}.lastLine(), c.Code
				t.Logf("%s: exit %d\n%s", side.name, c.Code, c.Stderr)
			}
			if last[0] != last[1] || codes[0] != codes[1] || codes[1] != 128 {
				t.Errorf("git: exit %d %q\nours: exit %d %q", codes[0], last[0], codes[1], last[1])
			}
		})
	}
}
