package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// The v2 packfile section's hostile cases: side-band text and lying links.

// TestHostileV2Sideband: in a v2 packfile section, progress text has its
// control characters masked in caret notation, colour kept, and a
// channel-3 error after the whole pack fails the fetch, refs as they were,
// as plain git's.
func TestHostileV2Sideband(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 3, "v9")
	t.Run("progress", func(t *testing.T) {
		dst := filepath.Join(t.TempDir(), "m.git")
		gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
		d := startHostile(t, env, up, lie{v2: true, resp: onPack("\x02\x1b]0;owned\x07\x1b[2J\x1b[31mred\x1b[m\n", false)})
		c := gittest.Exec(t, env, dst, nil, "git", "fetch", "--progress", "durable::"+d.url, "+refs/*:refs/*")
		mustRun(t, c, "fetch")
		if !strings.Contains(string(c.Stderr), "remote: ^[]0;owned^G^[[2J\x1b[31mred\x1b[m") {
			t.Errorf("the upstream's message is not masked as git masks it:\n%q", c.Stderr)
		}
	})
	for _, side := range hostileSides {
		t.Run("channel 3 after the pack/"+side.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "m.git")
			gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
			d := startHostile(t, env, up, lie{v2: true, resp: onPack("\x03access \x1b[2Jdenied\n", true)})
			before := refs(t, env, dst)
			c := gittest.Exec(t, env, dst, nil, "git", "fetch", side.prefix+d.url, "+refs/*:refs/*")
			if c.Code == 0 || refs(t, env, dst) != before || !strings.Contains(string(c.Stderr), "denied") {
				t.Errorf("exit %d, refs changed %v:\n%s", c.Code, refs(t, env, dst) != before, c.Stderr)
			}
			if side.name == "durable" && strings.ContainsRune(string(c.Stderr), 0x1b) {
				t.Errorf("stderr carries an escape: %q", c.Stderr)
			}
		})
	}
}

// TestHostileV2GraphLies: a v2 packfile whose links lie about their types
// is refused by a clone through the helper as by plain git's, kept or
// exploded, and so is a fetch into a mirror, its refs as they were.
func TestHostileV2GraphLies(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	for _, l := range graphLies {
		for _, pad := range []int{0, 10000} {
			pack, adv, bad := liePack(t, l, pad)
			d := startHostile(t, env, up, lie{v2: true, pack: pack, lsRefs: lsRefsOf(adv)})
			t.Run(fmt.Sprintf("%s/pad %d", l.name, pad), func(t *testing.T) {
				for _, side := range hostileSides {
					dst := filepath.Join(t.TempDir(), "m.git")
					c := gittest.Exec(t, env, base, nil, "git", "clone", "--mirror", side.prefix+d.url, dst)
					if c.Code != 128 || !refusal(c, bad) {
						t.Errorf("%s clone: exit %d, want 128 with a fatal line naming %s:\n%s", side.name, c.Code, bad, c.Stderr)
					}
					if _, err := os.Stat(dst); !os.IsNotExist(err) {
						t.Errorf("%s: the clone left %s (%v)", side.name, dst, err)
					}
				}
				if pad > 0 {
					fetchLie(t, env, mirror, d.url, "false", bad)
				}
			})
		}
	}
}

// lsRefsOf is the ls-refs answer of the refs a v0 advertisement lie names.
func lsRefsOf(adv func([]string) []string) func([]string) []string {
	return func([]string) []string {
		var out []string
		for _, p := range adv([]string{"x HEAD\x00caps\n"}) {
			ref, _, _ := strings.Cut(strings.TrimSuffix(p, "\n"), "\x00")
			out = append(out, ref+"\n")
		}
		return out
	}
}

// junkAfterPack is an answer rewrite that puts n bytes on the pack's band
// after its trailer, before the flush that ends the packfile section.
func junkAfterPack(n int) func(string, bool) []pktOut {
	var junk []pktOut
	for rest := n; rest > 0; rest -= 65000 {
		junk = append(junk, pktOut{payload: "\x01" + strings.Repeat("x", min(rest, 65000))})
	}
	done := false
	return func(p string, flush bool) []pktOut {
		out := []pktOut{{payload: p, flush: flush}}
		if flush && !done {
			done = true
			return append(append([]pktOut{}, junk...), out...)
		}
		return out
	}
}

// TestHostileV2JunkAfterPack: data on the pack's band between its trailer
// and the flush that ends the packfile section fails a clone as plain
// git's does (exit 128, nothing left), whatever its size — never taken,
// never ending in a killed process — and a fetch into a mirror, exploded
// or kept, leaves its refs as they were and no .keep behind.
func TestHostileV2JunkAfterPack(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 3, "v9")
	for _, n := range []int{100, 2 << 20, 5 << 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			for _, side := range hostileSides {
				d := startHostile(t, env, up, lie{v2: true, resp: junkAfterPack(n)})
				dst := filepath.Join(t.TempDir(), "m.git")
				c := gittest.Exec(t, env, base, nil, "git", "clone", "--mirror", side.prefix+d.url, dst)
				if c.Code != 128 {
					t.Errorf("%s clone: exit %d, want 128:\n%s", side.name, c.Code, c.Stderr)
				}
				if _, err := os.Stat(dst); !os.IsNotExist(err) {
					t.Errorf("%s: the clone left %s (%v)", side.name, dst, err)
				}
				if last := (result{Cmd: c}).lastLine(); side.name == "durable" && last != "fatal: bad pack from '"+d.url+"': pack has junk at the end" {
					t.Errorf("durable clone: last line %q", last)
				}
			}
			for _, limit := range []string{"100000", "1"} {
				dst := filepath.Join(t.TempDir(), "m.git")
				gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
				before := refs(t, env, dst)
				d := startHostile(t, env, up, lie{v2: true, resp: junkAfterPack(n)})
				c := gittest.Exec(t, env, dst, nil, "git", "-c", "fetch.unpackLimit="+limit, "fetch", "durable::"+d.url, "+refs/*:refs/*")
				keeps, _ := filepath.Glob(filepath.Join(dst, "objects/pack/*.keep"))
				if c.Code != 128 || refs(t, env, dst) != before || len(keeps) > 0 {
					t.Errorf("fetch, unpack limit %s: exit %d, refs changed %v, .keep %v:\n%s", limit, c.Code, refs(t, env, dst) != before, keeps, c.Stderr)
				}
			}
		})
	}
}

// cutInPack is an answer rewrite that cuts the connection in the middle of
// the n-th packet of the pack's band.
func cutInPack(n int) func(string, bool) []pktOut {
	seen := 0
	return func(p string, flush bool) []pktOut {
		if !flush && strings.HasPrefix(p, "\x01") {
			if seen++; seen == n {
				return []pktOut{{payload: p, cut: true}}
			}
		}
		return []pktOut{{payload: p, flush: flush}}
	}
}

// TestHostileCutInPack: a connection cut in the middle of the pack, over
// v0 and v2, fails a clone through the helper as plain git's fails — exit
// 128, git's "unexpected disconnect while reading sideband packet" and
// "fatal: early EOF" (the helper's last line; git's own ends with its
// index-pack's complaint) — not as a bad pack, and so does the batch's
// line of statistics.
func TestHostileCutInPack(t *testing.T) {
	env := env(t)
	base, up, _ := mirrored(t, env)
	for _, v2 := range []bool{false, true} {
		t.Run(fmt.Sprintf("v2=%v", v2), func(t *testing.T) {
			for _, side := range hostileSides {
				d := startHostile(t, env, up, lie{v2: v2, resp: cutInPack(2)})
				dst := filepath.Join(t.TempDir(), "m.git")
				c, stats := durable(t, env, base, "clone", "--mirror", side.prefix+d.url, dst)
				last := (result{Cmd: c}).lastLine()
				if side.name == "git" {
					last = "fatal: early EOF" // then "invalid index-pack output", git's own
				}
				if c.Code != 128 || last != "fatal: early EOF" || !strings.Contains(string(c.Stderr), "unexpected disconnect while reading sideband packet") || !strings.Contains(string(c.Stderr), "fatal: early EOF\n") {
					t.Errorf("%s: exit %d:\n%s", side.name, c.Code, c.Stderr)
				}
				if side.name == "durable" && (strings.Contains(string(c.Stderr), "bad pack") || len(stats) != 1 || stats[0].Error != "early EOF") {
					t.Errorf("durable: a cut told as a bad pack: %+v\n%s", stats, c.Stderr)
				}
			}
		})
	}
}
