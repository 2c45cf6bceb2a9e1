package integration

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// The commit dates of newUpstream's history: commit i at 1700000000+60i
// (2023-11-14 22:13:20 UTC), so these pick commits 25 and 15 of main.
const (
	sinceC25 = "2023-11-14 22:38:20 +0000"
	sinceC15 = "2023-11-14 22:28:20 +0000"
)

// deepenCases are git's ways of making and deepening a shallow
// repository: the clone's options, then a later fetch's. side (at commit
// 20 of main) and the tags v10, v30 are refs to exclude.
var deepenCases = []struct {
	name         string
	clone, fetch []string
}{
	{"depth", []string{"--depth", "3"}, []string{"--depth", "6"}},
	{"deepen", []string{"--depth", "2"}, []string{"--deepen", "3"}},
	{"shallow-since", []string{"--shallow-since", sinceC25}, []string{"--shallow-since", sinceC15}},
	{"shallow-exclude", []string{"--shallow-exclude", "side"}, []string{"--shallow-exclude", "v10"}},
	{"exclude-twice", []string{"--shallow-exclude=side", "--shallow-exclude=v30"}, []string{"--shallow-exclude", "v10", "--shallow-exclude", "refs/heads/side"}},
	{"since-and-exclude", []string{"--shallow-since", sinceC15, "--shallow-exclude", "side"}, []string{"--shallow-since", sinceC15, "--shallow-exclude", "v10"}},
	{"unshallow", []string{"--shallow-exclude", "v30"}, []string{"--unshallow"}},
}

// TestRemoteDeepen makes shallow clones through the helper and with plain
// git from the same upstream, for each of git's deepening options, over
// every transport and protocol v2 and v0; then deepens them with a later
// fetch, and at last fetches new commits without options. After each
// step: the same refs, $GIT_DIR/shallow and number of commits as plain
// git, and git fsck clean.
func TestRemoteDeepen(t *testing.T) {
	t.Parallel() // see "Parallel tests" in harness_test.go
	forKinds(t, func(t *testing.T, env []string, up upstream) {
		work := t.TempDir()
		plain := up.plain
		if !strings.Contains(plain, "://") {
			plain = "file://" + plain
		}
		for _, tc := range deepenCases {
			ours, theirs := filepath.Join(work, tc.name, "ours"), filepath.Join(work, tc.name, "theirs")
			c, stats := durable(t, env, work, append(append([]string{"clone"}, tc.clone...), "durable::"+up.url, ours)...)
			mustRun(t, c, tc.name+": clone through the helper")
			gittest.Git(t, env, work, append(append([]string{"clone", "-q"}, tc.clone...), plain, theirs)...)
			checkBatches(t, stats)
			sameShallowRepo(t, env, ours, theirs, true, tc.name+": clone "+strings.Join(tc.clone, " "))
			if shallowOf(t, ours) == "" {
				t.Fatalf("%s: the clone is not shallow", tc.name)
			}

			c, _ = durable(t, env, ours, append([]string{"fetch"}, tc.fetch...)...)
			mustRun(t, c, tc.name+": fetch through the helper")
			gittest.Git(t, env, theirs, append([]string{"fetch", "-q"}, tc.fetch...)...)
			sameShallowRepo(t, env, ours, theirs, false, tc.name+": fetch "+strings.Join(tc.fetch, " "))
			// git 2.39 does not see the objects a helper wrote when it
			// follows tags after the fetch (its loose object cache is the
			// one of before: plain git over v0 HTTP misses them too), so
			// the tags the deepened history reaches come with the next
			// fetch, from what is here: no batch.
			c, stats = durable(t, env, ours, "fetch")
			mustRun(t, c, tc.name+": fetch of the tags through the helper")
			if len(stats) != 0 {
				t.Errorf("%s: the tags came with a fetch batch: %+v", tc.name, stats)
			}
			gittest.Git(t, env, theirs, "fetch", "-q")
			sameShallowRepo(t, env, ours, theirs, true, tc.name+": fetch of the tags")
		}

		advance(t, env, up.dir, 2, "v100")
		for _, tc := range deepenCases {
			ours, theirs := filepath.Join(work, tc.name, "ours"), filepath.Join(work, tc.name, "theirs")
			c, _ := durable(t, env, ours, "fetch")
			mustRun(t, c, tc.name+": later fetch through the helper")
			gittest.Git(t, env, theirs, "fetch", "-q")
			sameShallowRepo(t, env, ours, theirs, true, tc.name+": later fetch")
		}
	})
}

// sameShallowRepo fails unless ours has the refs (without the tags when
// tags is false), the shallow boundary and the number of commits of
// theirs, and passes git fsck.
func sameShallowRepo(t *testing.T, env []string, ours, theirs string, tags bool, what string) {
	t.Helper()
	list := func(dir string) string {
		var keep []string
		for _, l := range strings.SplitAfter(refs(t, env, dir), "\n") {
			if tags || !strings.Contains(l, " refs/tags/") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "")
	}
	if a, b := list(theirs), list(ours); a != b {
		t.Fatalf("%s: refs differ:\ngit:\n%s\nours:\n%s", what, a, b)
	}
	if a, b := shallowOf(t, theirs), shallowOf(t, ours); a != b {
		t.Fatalf("%s: shallow differs:\ngit:\n%s\nours:\n%s", what, a, b)
	}
	count := func(dir string) int { return strings.Count(gittest.Git(t, env, dir, "rev-list", "--all"), "\n") }
	if a, b := count(theirs), count(ours); a != b {
		t.Fatalf("%s: git has %d commits, ours %d", what, a, b)
	}
	gittest.Fsck(t, env, ours)
}

// dropCaps removes capabilities from a v0 advertisement's first line.
func dropCaps(drop ...string) func([]string) []string {
	return func(pkts []string) []string {
		head, caps, _ := strings.Cut(strings.TrimSuffix(pkts[0], "\n"), "\x00")
		var keep []string
		for _, c := range strings.Fields(caps) {
			if !slices.Contains(drop, c) {
				keep = append(keep, c)
			}
		}
		pkts[0] = head + "\x00" + strings.Join(keep, " ") + "\n"
		return pkts
	}
}

// TestRemoteDeepenUnsupported: an upstream that does not offer what a
// deepening needs (v0: shallow, deepen-since, deepen-not, deepen-relative;
// v2: fetch's "shallow") fails the clone or fetch through the helper as it
// fails plain git: exit 128, git's last line, nothing fetched.
func TestRemoteDeepenUnsupported(t *testing.T) {
	t.Parallel() // see "Parallel tests" in harness_test.go
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	noShallow2 := func(lines []string) []string {
		for i, l := range lines {
			if strings.HasPrefix(l, "fetch=") {
				lines[i] = strings.Replace(l, "shallow", "", 1)
			}
		}
		return lines
	}
	for _, tc := range []struct {
		name string
		lie  lie
		args []string // of the clone; with a shallow clone first, of its fetch
		// fetch, when set, runs on a shallow clone of the honest upstream
		fetch bool
	}{
		{"v0 shallow", lie{adv: dropCaps("shallow")}, []string{"--depth", "1"}, false},
		{"v0 deepen-since", lie{adv: dropCaps("deepen-since")}, []string{"--shallow-since", sinceC25}, false},
		{"v0 deepen-not", lie{adv: dropCaps("deepen-not")}, []string{"--shallow-exclude", "side"}, false},
		{"v0 deepen-relative", lie{adv: dropCaps("deepen-relative")}, []string{"--deepen", "2"}, true},
		{"v0 shallow repository", lie{adv: dropCaps("shallow")}, nil, true},
		{"v2 depth", lie{v2: true, caps2: noShallow2}, []string{"--depth", "1"}, false},
		{"v2 shallow-exclude", lie{v2: true, caps2: noShallow2}, []string{"--shallow-exclude", "side"}, false},
		{"v2 shallow-since", lie{v2: true, caps2: noShallow2}, []string{"--shallow-since", sinceC25}, false},
		{"v2 shallow repository", lie{v2: true, caps2: noShallow2}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startHostile(t, env, up, tc.lie)
			var last [2]string
			var codes [2]int
			for i, side := range hostileSides {
				work := t.TempDir()
				dst := filepath.Join(work, "c")
				var c *gittest.Cmd
				if tc.fetch {
					gittest.Git(t, env, work, "clone", "-q", "--depth", "2", "file://"+up, dst)
					before := refs(t, env, dst)
					// A new commit, so that the fetch has something to ask.
					advance(t, env, up, 1, "")
					c = gittest.Exec(t, env, dst, nil, "git", append([]string{"fetch", side.prefix + d.url, "+refs/heads/*:refs/remotes/origin/*"}, tc.args...)...)
					if after := refs(t, env, dst); after != before {
						t.Errorf("%s: refs changed:\n%s", side.name, after)
					}
				} else {
					c = gittest.Exec(t, env, work, nil, "git", append(append([]string{"clone"}, tc.args...), side.prefix+d.url, dst)...)
					if _, err := os.Stat(dst); err == nil {
						t.Errorf("%s: the clone was left", side.name)
					}
				}
				last[i], codes[i] = result{Cmd: c}.lastLine(), c.Code
			}
			t.Logf("git: %q, ours: %q", last[0], last[1])
			if last[0] != last[1] || codes[0] != codes[1] || codes[1] != 128 {
				t.Errorf("git: exit %d %q\nours: exit %d %q", codes[0], last[0], codes[1], last[1])
			}
		})
	}
}
