package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// The hostile cases of protocol v2: the same lies as over v0 where v2 has
// them (a ref name, HEAD's target, shallow lines, side-band text, a pack
// whose links lie, an ERR line), and v2's own (an object format, a
// packfile-uris section nobody asked for), each against plain git (which
// asks for v2 by default) on the same server.

// TestHostileV2RefNames: a ref name of an ls-refs answer with newlines in
// it (a line of its own before the real ones: git asks v2 for refs/ alone,
// without HEAD) cannot end the list or answer git's later commands: the
// mirror fetch succeeds with the upstream's refs and the name is warned
// of; with "--prune", no branch is deleted.
func TestHostileV2RefNames(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 2, "v9")
	name := "refs/zzz\n\n" + strings.Repeat("ok\n", 40) + "lock"
	d := startHostile(t, env, up, lie{v2: true, lsRefs: addFirstRef(name)})
	dst := filepath.Join(t.TempDir(), "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
	c := gittest.Exec(t, env, dst, nil, "git", "fetch", "durable::"+d.url, "+refs/*:refs/*")
	mustRun(t, c, "durable fetch")
	if !strings.Contains(string(c.Stderr), "warning: ignoring funny ref 'refs/zzz??ok?ok?") {
		t.Errorf("no warning of the funny ref:\n%s", c.Stderr)
	}
	if got, want := refs(t, env, dst), refs(t, env, up); got != want {
		t.Errorf("refs of the mirror:\n%s\nupstream:\n%s", got, want)
	}
	for _, side := range hostileSides {
		dst := filepath.Join(t.TempDir(), "m.git")
		gittest.Git(t, env, base, "clone", "-q", "--mirror", up, dst)
		gittest.Git(t, env, dst, "config", "remote.origin.url", side.prefix+startHostile(t, env, up,
			lie{v2: true, lsRefs: addFirstRef("refs/heads/0\n")}).url)
		before := refs(t, env, dst)
		c := gittest.Exec(t, env, dst, nil, "git", "fetch", "--prune", "origin")
		if after := refs(t, env, dst); after != before {
			t.Fatalf("%s: refs changed (exit %d):\nbefore:\n%s\nafter:\n%s\n%s", side.name, c.Code, before, after, c.Stderr)
		}
		if side.name == "durable" {
			mustRun(t, c, "durable fetch --prune")
		}
	}
}

// TestHostileV2Advertisement: a v2 capability advertisement with an
// object format git does not know, or an ERR line with terminal escapes in
// its place, fails ls-remote through the helper as it fails plain git:
// exit 128 and git's last line, control characters shown as '?'.
func TestHostileV2Advertisement(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	for _, tc := range []struct {
		name string
		caps func([]string) []string
	}{
		{"bogus object-format", func(lines []string) []string {
			for i, l := range lines {
				if strings.HasPrefix(l, "object-format=") {
					lines[i] = "object-format=bogus\n"
				}
			}
			return lines
		}},
		{"ERR", func([]string) []string { return []string{"ERR \x1b[2Jno\x07 such \x1b]0;title\x07repo\n"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startHostile(t, env, up, lie{v2: true, caps2: tc.caps})
			var last [2]string
			var codes [2]int
			for i, side := range hostileSides {
				c := gittest.Exec(t, env, base, nil, "git", "ls-remote", side.prefix+d.url)
				last[i], codes[i] = result{Cmd: c}.lastLine(), c.Code
				if strings.ContainsAny(string(c.Stderr), "\x1b\x07") || len(c.Stdout) != 0 {
					t.Errorf("%s: stdout %q, stderr %q", side.name, c.Stdout, c.Stderr)
				}
			}
			if last[0] != last[1] || codes[0] != codes[1] || codes[1] != 128 {
				t.Errorf("git: exit %d %q\nours: exit %d %q", codes[0], last[0], codes[1], last[1])
			}
		})
	}
}

// TestHostileV2PackfileURIs: an answer to fetch with a packfile-uris
// section the helper never asked for (git would fetch the URIs with
// http-fetch) fails the fetch, its refs as they were, nothing under the
// repository's objects left behind.
func TestHostileV2PackfileURIs(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 2, "v9")
	d := startHostile(t, env, up, lie{v2: true, resp: beforeSection("packfile\n",
		"packfile-uris\n", strings.Repeat("a", 40)+" http://127.0.0.1:1/elsewhere.pack\n", "0001")})
	for _, side := range hostileSides {
		dst := filepath.Join(t.TempDir(), "m.git")
		gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
		before := refs(t, env, dst)
		objects := gittest.Objects(t, env, dst)
		c := gittest.Exec(t, env, dst, nil, "git", "fetch", side.prefix+d.url, "+refs/*:refs/*")
		t.Logf("%s: exit %d\n%s", side.name, c.Code, c.Stderr)
		if c.Code == 0 || refs(t, env, dst) != before {
			t.Errorf("%s: exit %d, refs changed %v", side.name, c.Code, refs(t, env, dst) != before)
		}
		if side.name == "durable" {
			failed(t, env, c, dst, before, "fatal: the upstream sent a packfile-uris section, which the helper did not ask for")
			if got := gittest.Objects(t, env, dst); got != objects {
				t.Errorf("objects were written: %d lines, %d before", strings.Count(got, "\n"), strings.Count(objects, "\n"))
			}
		}
	}
}

// TestHostileV2ShallowInfo: the shallow-info section of a v2 answer is
// read as git's fetch-pack reads it. Where the fetch does not deepen, its
// shallow lines say where the upstream is (or claims to be) shallow, and
// git keeps only those that exist after the pack: a clone keeps them, an
// id never sent is never kept, a later honest fetch gives the whole
// history. An unshallow of a commit that is not shallow here, or a line
// that is not one, fails the fetch as it fails git's, the shallow file and
// the refs as they were.
func TestHostileV2ShallowInfo(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	old := strings.TrimSpace(gittest.Git(t, env, up, "rev-parse", "main~3"))
	advance(t, env, up, 3, "v9")
	mid := strings.TrimSpace(gittest.Git(t, env, up, "rev-parse", "main~1"))
	const never = "1234567890123456789012345678901234567890"
	honest := startHostile(t, env, up, lie{v2: true})
	for _, tc := range []struct {
		name    string
		ids     []string
		shallow string // what git keeps on a clone
	}{
		{"never sent", []string{never}, ""},
		{"sent", []string{never, mid}, mid},
		{"sent with a tail", []string{mid + "tail"}, mid}, // get_oid_hex reads the digits
	} {
		var lines []string
		for _, id := range tc.ids {
			lines = append(lines, "shallow "+id+"\n")
		}
		d := startHostile(t, env, up, lie{v2: true, resp: inSection("shallow-info\n", lines...)})
		for _, mode := range []string{"--no-checkout", "--mirror"} {
			t.Run("clone "+mode+"/"+tc.name, func(t *testing.T) {
				for _, side := range hostileSides {
					dst := filepath.Join(t.TempDir(), "c")
					mustRun(t, gittest.Exec(t, env, base, nil, "git", "clone", mode, side.prefix+d.url, dst), side.name+" clone")
					if got := shallowOf(t, dst); got != tc.shallow {
						t.Errorf("%s: shallow %q, want %q", side.name, got, tc.shallow)
					}
					if tc.shallow != "" {
						continue
					}
					mustRun(t, gittest.Exec(t, env, dst, nil, "git", "fetch", side.prefix+honest.url, "+refs/heads/*:refs/remotes/honest/*"), side.name+" honest fetch")
					if a, b := gittest.Git(t, env, up, "rev-list", "--count", "main"), gittest.Git(t, env, dst, "rev-list", "--count", "honest/main"); a != b {
						t.Errorf("%s: %s commits after an honest fetch, the upstream has %s", side.name, strings.TrimSpace(b), strings.TrimSpace(a))
					}
					gittest.Fsck(t, env, dst)
				}
			})
		}
	}
	for _, tc := range []struct{ name, line string }{
		{"unshallow of a commit not shallow", "unshallow " + old + "\n"},
		{"not a shallow line", "deepen " + old + "\n"},
		{"a short id", "shallow " + old[:20] + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startHostile(t, env, up, lie{v2: true, resp: inSection("shallow-info\n", tc.line)})
			var codes [2]int
			for i, side := range hostileSides {
				codes[i] = deepenFails(t, env, base, up, side, d.url)
			}
			if codes[0] != codes[1] {
				t.Errorf("exit: git %d, ours %d", codes[0], codes[1])
			}
		})
	}
}

// TestHostileV2HeadTarget: an ls-refs answer gives HEAD a symref target it
// does not list. The clone through the helper is plain git's clone of the
// same server (v2): HEAD at HEAD's id, refs and fsck alike.
func TestHostileV2HeadTarget(t *testing.T) {
	env := env(t)
	for _, hc := range headCases {
		t.Run(hc.name, func(t *testing.T) {
			base := t.TempDir()
			up := headUpstream(t, env, base, hc)
			d := startHostile(t, env, up, lie{v2: true, lsRefs: func(lines []string) []string {
				for i, l := range lines {
					if f := strings.Fields(l); len(f) >= 2 && f[1] == "HEAD" {
						lines[i] = f[0] + " HEAD symref-target:" + hc.target + "\n"
					}
				}
				return lines
			}})
			modes := []string{"--no-checkout", "--bare", "--mirror"}
			if hc.branches > 0 {
				modes = modes[2:]
			}
			for _, mode := range modes {
				t.Run(mode, func(t *testing.T) {
					want := cloneHead(t, env, d.url, mode, hc, false)
					if got := cloneHead(t, env, "durable::"+d.url, mode, hc, true); got != want {
						t.Errorf("git:\n%.600s\nours:\n%.600s", want, got)
					}
				})
			}
		})
	}
}
