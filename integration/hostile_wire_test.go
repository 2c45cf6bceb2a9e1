package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestHostileUpperCaseIDs: an upstream that writes object ids in upper
// case — on the ref lines of a v0 advertisement, of a v2 ls-refs answer
// (ids and peeled ids), in v0 and v2 acknowledgements. git reads ids with
// hexval, which takes both cases; the helper's fetch ends as plain git's
// on the same server: the same exit code and, where git takes them, the
// upstream's refs. Each lie counts how often it was told, so that a lie
// the dialogue never reached fails the test.
func TestHostileUpperCaseIDs(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 3, "v9")
	var told atomic.Int32
	upper := func(line string) string { // "<id> rest": the id in upper case
		if len(line) < 40 {
			return line
		}
		told.Add(1)
		return strings.ToUpper(line[:40]) + line[40:]
	}
	upperACK := func(p string, flush bool) []pktOut { // an acknowledgement's id in upper case
		if rest, ok := strings.CutPrefix(p, "ACK "); ok && !flush {
			p = "ACK " + upper(rest)
		}
		return []pktOut{{payload: p, flush: flush}}
	}
	for _, tc := range []struct {
		name string
		lie  lie
	}{
		{"v0 advertisement", lie{adv: func(p []string) []string {
			for i := range p {
				p[i] = upper(p[i])
			}
			return p
		}}},
		{"v2 ls-refs", lie{v2: true, lsRefs: func(l []string) []string {
			for i, line := range l {
				line = upper(line)
				if at := strings.Index(line, " peeled:") + len(" peeled:"); at >= len(" peeled:") {
					line = line[:at] + upper(line[at:])
				}
				l[i] = line
			}
			return l
		}}},
		{"v0 ACK", lie{resp: upperACK}},
		{"v2 ACK", lie{v2: true, resp: upperACK}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startHostile(t, env, up, tc.lie)
			var codes [2]int
			var last [2]string
			for i, side := range hostileSides {
				told.Store(0)
				c, dst := mirrorFetch(t, env, base, mirror, d.url, side, tc.lie.v2)
				codes[i], last[i] = c.Code, result{Cmd: c}.lastLine()
				if told.Load() == 0 {
					t.Fatalf("%s: the lie was never told:\n%s", side.name, c.Stderr)
				}
				t.Logf("%s: exit %d\n%s", side.name, c.Code, c.Stderr)
				if c.Code == 0 {
					if got, want := refs(t, env, dst), refs(t, env, up); got != want {
						t.Errorf("%s: refs\n%s\nupstream:\n%s", side.name, got, want)
					}
					gittest.Fsck(t, env, dst)
				}
			}
			if codes[0] != codes[1] || codes[0] != 0 && last[0] != last[1] {
				t.Errorf("git: exit %d %q\nours: exit %d %q", codes[0], last[0], codes[1], last[1])
			}
		})
	}
}

// TestHostileBadPktLength: an upstream whose answer to the haves starts
// with a pkt-line length git refuses — a character that is not a hex digit
// (the bytes 0x10-0x19 among them), the length 3, a payload of 65,520
// bytes or more — over v0 and v2: the helper's fetch fails as plain git's,
// the same exit code and last line ("protocol error: bad line length
// …"), refs unchanged.
func TestHostileBadPktLength(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 3, "v9")
	for _, tc := range []struct {
		name, raw string
	}{
		{"not hex", "00zz"},
		{"control bytes", "\x10\x10\x10\x10"},
		{"three", "0003"},
		{"too long", "fff4" + strings.Repeat("a", 0xfff4-4)},
	} {
		for _, v2 := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s v2=%v", tc.name, v2), func(t *testing.T) {
				var told atomic.Int32
				first := ackOrNAK // the first packet of an answer to haves
				if v2 {
					first = func(p string) bool { return p == "acknowledgments\n" || p == "packfile\n" }
				}
				d := startHostile(t, env, up, lie{v2: v2, resp: func(p string, flush bool) []pktOut {
					if !flush && first(p) && told.Add(1) == 1 {
						return []pktOut{{raw: tc.raw}}
					}
					return []pktOut{{payload: p, flush: flush}}
				}})
				var codes [2]int
				var last [2]string
				for i, side := range hostileSides {
					told.Store(0)
					c, dst := mirrorFetch(t, env, base, mirror, d.url, side, v2)
					codes[i], last[i] = c.Code, result{Cmd: c}.lastLine()
					if told.Load() == 0 {
						t.Fatalf("%s: the lie was never told:\n%s", side.name, c.Stderr)
					}
					if c.Code == 0 {
						t.Errorf("%s: the fetch succeeded:\n%s", side.name, c.Stderr)
					}
					if after, before := refs(t, env, dst), refs(t, env, mirror); after != before {
						t.Errorf("%s: refs changed:\nbefore:\n%s\nafter:\n%s", side.name, before, after)
					}
				}
				if codes[0] != codes[1] || last[0] != last[1] {
					t.Errorf("git: exit %d %q\nours: exit %d %q", codes[0], last[0], codes[1], last[1])
				}
			})
		}
	}
}

// TestHostileAckForms: acknowledgements in forms git's fetch-pack reads
// though an upload-pack never writes them — over v0 a status glued to the
// id or amid other words (get_ack looks for "continue", "common" and
// "ready" anywhere after the id), over v2 an id with a tail and an "ACK"
// of no id (process_ack reads the id's digits, and ignores a line whose
// id does not parse). Plain git fetches; so must the helper, with the
// upstream's refs.
func TestHostileAckForms(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 3, "v9")
	var told atomic.Int32
	onAcks := func(change func(p string) []pktOut) func(string, bool) []pktOut {
		return func(p string, flush bool) []pktOut {
			if flush || !strings.HasPrefix(p, "ACK ") {
				return []pktOut{{payload: p, flush: flush}}
			}
			told.Add(1)
			return change(p)
		}
	}
	replace := func(pairs ...string) func(string) []pktOut {
		return func(p string) []pktOut { return []pktOut{{payload: strings.NewReplacer(pairs...).Replace(p)}} }
	}
	for _, tc := range []struct {
		name string
		lie  lie
	}{
		{"v0 status glued", lie{resp: onAcks(replace(" common", "common", " ready", "ready", " continue", "continue"))}},
		{"v0 status amid words", lie{resp: onAcks(replace(" common", " x-common-y", " ready", " x-ready-y", " continue", " x-continue-y"))}},
		{"v2 id with a tail", lie{v2: true, resp: onAcks(replace("\n", "tail\n"))}},
		{"v2 ACK of no id", lie{v2: true, resp: onAcks(func(p string) []pktOut {
			return []pktOut{{payload: "ACK not-an-id\n"}, {payload: p}}
		})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startHostile(t, env, up, tc.lie)
			var codes [2]int
			for i, side := range hostileSides {
				told.Store(0)
				c, dst := mirrorFetch(t, env, base, mirror, d.url, side, tc.lie.v2)
				codes[i] = c.Code
				if told.Load() == 0 {
					t.Fatalf("%s: the lie was never told:\n%s", side.name, c.Stderr)
				}
				mustRun(t, c, side.name+" fetch")
				if got, want := refs(t, env, dst), refs(t, env, up); got != want {
					t.Errorf("%s: refs\n%s\nupstream:\n%s", side.name, got, want)
				}
				gittest.Fsck(t, env, dst)
			}
			if codes[0] != codes[1] {
				t.Errorf("exit: git %d, ours %d", codes[0], codes[1])
			}
		})
	}
}

// mirrorFetch fetches every ref of url into a fresh mirror clone of mirror,
// through side (plain git or the helper) over protocol v2 or v0, and
// returns the fetch and the clone.
func mirrorFetch(t *testing.T, env []string, base, mirror, url string, side hostileSide, v2 bool) (*gittest.Cmd, string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
	version := "0"
	if v2 {
		version = "2"
	}
	return gittest.Exec(t, env, dst, nil, "git", "-c", "protocol.version="+version, "fetch", side.prefix+url, "+refs/*:refs/*"), dst
}
