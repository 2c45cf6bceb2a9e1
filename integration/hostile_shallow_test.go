package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// advertiseShallow adds "shallow <id>" lines to the advertisement, as an
// upstream that is (or says it is) shallow at those commits.
func advertiseShallow(ids ...string) func([]string) []string {
	return func(pkts []string) []string {
		for _, id := range ids {
			pkts = append(pkts, "shallow "+id+"\n")
		}
		return pkts
	}
}

// TestHostileShallowLines: an upstream advertises "shallow X" for an X it
// never sends. git keeps only the advertised commits that exist after the
// pack (fetch-pack.c update_shallow), and none when it deepens (the
// answer's shallow lines then): on a clone all of those, on a fetch
// with --update-shallow those the new refs reach, on any other fetch none,
// where git rejects the refs that reach one. Through the helper, the same
// $GIT_DIR/shallow as plain git's on the same server for clone, --bare and
// --mirror, and a later honest fetch gives the whole history; a fetch
// without --update-shallow that reaches an advertised commit is refused,
// no ref changed and no .keep left, where git keeps the refs that reach
// it.
func TestHostileShallowLines(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	old := strings.TrimSpace(gittest.Git(t, env, up, "rev-parse", "main~3"))
	oldMain := strings.TrimSpace(gittest.Git(t, env, up, "rev-parse", "main"))
	advance(t, env, up, 3, "v9")
	mid := strings.TrimSpace(gittest.Git(t, env, up, "rev-parse", "main~1"))
	const never = "1234567890123456789012345678901234567890"
	honest := startHostile(t, env, up, lie{})

	for _, tc := range []struct {
		name    string
		ids     []string
		shallow string // what git keeps on a clone
	}{
		{"never sent", []string{never}, ""},
		{"sent", []string{never, mid}, mid},
	} {
		d := startHostile(t, env, up, lie{adv: advertiseShallow(tc.ids...)})
		for _, mode := range []string{"--no-checkout", "--bare", "--mirror"} {
			t.Run("clone "+mode+"/"+tc.name, func(t *testing.T) {
				var got [2]string
				for i, side := range hostileSides {
					dst := filepath.Join(t.TempDir(), "c")
					mustRun(t, gittest.Exec(t, env, base, nil, "git", "clone", mode, side.prefix+d.url, dst), side.name+" clone")
					if got[i] = shallowOf(t, dst); got[i] != tc.shallow {
						t.Errorf("%s: shallow %q, want %q", side.name, got[i], tc.shallow)
					}
					if tc.shallow != "" {
						continue
					}
					advance(t, env, up, 1, "")
					mustRun(t, gittest.Exec(t, env, dst, nil, "git", "fetch", side.prefix+honest.url, "+refs/heads/*:refs/remotes/honest/*"), side.name+" honest fetch")
					if a, b := gittest.Git(t, env, up, "rev-list", "--count", "main"), gittest.Git(t, env, dst, "rev-list", "--count", "honest/main"); a != b {
						t.Errorf("%s: %s commits after an honest fetch, the upstream has %s", side.name, strings.TrimSpace(b), strings.TrimSpace(a))
					}
					gittest.Fsck(t, env, dst)
				}
			})
		}
	}

	t.Run("clone --depth 1", func(t *testing.T) {
		d := startHostile(t, env, up, lie{adv: advertiseShallow(never, mid)})
		var got [2]string
		for i, side := range hostileSides {
			dst := filepath.Join(t.TempDir(), "c")
			mustRun(t, gittest.Exec(t, env, base, nil, "git", "clone", "--bare", "--depth", "1", side.prefix+d.url, dst), side.name+" clone")
			got[i] = shallowOf(t, dst)
		}
		if want := strings.TrimSpace(gittest.Git(t, env, up, "rev-parse", "main")); got[0] != want || got[1] != want {
			t.Errorf("shallow: git %q, ours %q; want the answer's %s alone", got[0], got[1], want)
		}
	})

	d := startHostile(t, env, up, lie{adv: advertiseShallow(never, mid, old)})
	mainOf := func(dir string) string {
		return strings.TrimSpace(gittest.Git(t, env, dir, "rev-parse", "refs/heads/main"))
	}
	t.Run("fetch --update-shallow", func(t *testing.T) {
		var after [2]string
		for i, side := range hostileSides {
			dst := filepath.Join(t.TempDir(), "m.git")
			gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
			mustRun(t, gittest.Exec(t, env, dst, nil, "git", "fetch", "--update-shallow", side.prefix+d.url, "+refs/*:refs/*"), side.name+" fetch")
			if s := shallowOf(t, dst); s != mid {
				t.Errorf("%s: shallow %q, want %s alone (the new commit the new main reaches)", side.name, s, mid)
			}
			after[i] = refs(t, env, dst)
		}
		if after[0] != after[1] {
			t.Errorf("refs: git\n%s\nours\n%s", after[0], after[1])
		}
	})
	t.Run("fetch", func(t *testing.T) {
		for _, side := range hostileSides {
			dst := filepath.Join(t.TempDir(), "m.git")
			gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
			before := refs(t, env, dst)
			c := gittest.Exec(t, env, dst, nil, "git", "-c", "fetch.unpackLimit=1", "fetch", side.prefix+d.url, "+refs/*:refs/*")
			if keeps, _ := filepath.Glob(filepath.Join(dst, "objects/pack/*.keep")); len(keeps) != 0 {
				t.Errorf("%s: a .keep is left: %v", side.name, keeps)
			}
			if s := shallowOf(t, dst); s != "" || mainOf(dst) != oldMain {
				t.Errorf("%s: exit %d, shallow %q, main %s (want %s: a shallow root is not updated)\n%s", side.name, c.Code, s, mainOf(dst), oldMain, c.Stderr)
			}
			if side.name == "durable" && (c.Code != 128 || !strings.Contains(string(c.Stderr), "fatal: ") || refs(t, env, dst) != before) {
				t.Errorf("durable: exit %d, refs\n%s\nwant a refusal and\n%s\n%s", c.Code, refs(t, env, dst), before, c.Stderr)
			}
		}
	})

	t.Run("unshallow of a commit not shallow", func(t *testing.T) {
		var codes [2]int
		for i, side := range hostileSides {
			first := true // one connection: the helper fetches on its list's
			d := startHostile(t, env, up, lie{resp: func(p string, flush bool) []pktOut {
				out := []pktOut{{payload: p, flush: flush}}
				if flush && first { // the end of the shallow lines a deepening fetch gets first
					first = false
					return append([]pktOut{{payload: "unshallow " + old + "\n"}}, out...)
				}
				return out
			}})
			codes[i] = deepenFails(t, env, base, up, side, d.url)
		}
		if codes[0] != codes[1] {
			t.Errorf("exit: git %d, ours %d", codes[0], codes[1])
		}
	})
}

// deepenFails makes a shallow clone (depth 1) of up in a new directory and
// deepens it by one through url, as side fetches (plain git or the
// helper): the fetch must fail, leaving the shallow file and the refs as
// they were. It returns the exit code, for the two sides to be compared.
func deepenFails(t *testing.T, env []string, base, up string, side hostileSide, url string) int {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "c")
	mustRun(t, gittest.Exec(t, env, base, nil, "git", "clone", "-q", "--depth", "1", "--bare", "file://"+up, dst), "shallow clone")
	before, shallow := refs(t, env, dst), shallowOf(t, dst)
	c := gittest.Exec(t, env, dst, nil, "git", "fetch", "--deepen=1", side.prefix+url, "+refs/heads/*:refs/heads/*")
	if c.Code == 0 || shallowOf(t, dst) != shallow || refs(t, env, dst) != before {
		t.Errorf("%s: exit %d, shallow %q (was %q), refs changed %v\n%s", side.name, c.Code, shallowOf(t, dst), shallow, refs(t, env, dst) != before, c.Stderr)
	}
	t.Logf("%s: exit %d\n%s", side.name, c.Code, c.Stderr)
	return c.Code
}
