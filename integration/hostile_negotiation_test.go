package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestHostileNegotiation: an upstream that lies in the negotiation's
// acknowledgements, over v0 (git://, stateful) and v2. Where plain git
// takes the lie (an acknowledgement of an id the client never sent: git
// marks it common and goes on), the helper's fetch succeeds too and the
// mirror equals the upstream; where git dies (a flush or a cut where a
// NAK belongs, no "ready" before the pack), the helper's fetch fails with
// git's exit code and the refs stay as they were. Each lie counts how
// often it was told, so that a lie the dialogue never reached fails the
// test instead of passing it.
func TestHostileNegotiation(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	advance(t, env, up, 3, "v9")
	const never = "1234567890123456789012345678901234567890"
	for _, tc := range []struct {
		name  string
		v2    bool
		at    func(p string) bool     // the packet changed: the first for which at holds
		to    func(p string) []pktOut // what goes in its place
		fails bool
		says  string // in the helper's stderr where it fails
	}{
		{name: "v0 ACK of an id never sent", at: ackOrNAK, to: before("ACK " + never + " common\n")},
		{name: "v0 flush for NAK", at: ackOrNAK, to: instead(pktOut{flush: true}), fails: true, says: "git fetch-pack: expected ACK/NAK, got a flush packet"},
		{name: "v0 cut at NAK", at: ackOrNAK, to: func(p string) []pktOut { return []pktOut{{payload: p, cut: true}} }, fails: true,
			says: "the upstream's answer ended inside a line"},
		{name: "v2 ACK of an id never sent", v2: true, at: is("acknowledgments\n"), to: after("ACK " + never + "\n")},
		{name: "v2 no ready before the pack", v2: true, at: is("ready\n"), to: instead(), fails: true,
			says: "expected no other sections to be sent after no 'ready'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var told atomic.Int32
			d := startHostile(t, env, up, lie{v2: tc.v2, resp: func(p string, flush bool) []pktOut {
				if flush || !tc.at(p) || told.Add(1) > 1 {
					return []pktOut{{payload: p, flush: flush}}
				}
				return tc.to(p)
			}})
			var codes [2]int
			for i, side := range hostileSides {
				told.Store(0)
				dst := filepath.Join(t.TempDir(), "m.git")
				gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
				before := refs(t, env, dst)
				c := gittest.Exec(t, env, dst, nil, "git", "-c", "protocol.version="+map[bool]string{false: "0", true: "2"}[tc.v2],
					"fetch", side.prefix+d.url, "+refs/*:refs/*")
				codes[i] = c.Code
				if told.Load() == 0 {
					t.Fatalf("%s: the lie was never told:\n%s", side.name, c.Stderr)
				}
				if !tc.fails {
					mustRun(t, c, side.name+" fetch")
					if got, want := refs(t, env, dst), refs(t, env, up); got != want {
						t.Errorf("%s: refs\n%s\nupstream:\n%s", side.name, got, want)
					}
					gittest.Fsck(t, env, dst)
					continue
				}
				if c.Code == 0 {
					t.Fatalf("%s: the fetch succeeded:\n%s", side.name, c.Stderr)
				}
				if after := refs(t, env, dst); after != before {
					t.Errorf("%s: refs changed:\nbefore:\n%s\nafter:\n%s", side.name, before, after)
				}
				if errs := string(c.Stderr); side.name == "durable" && !strings.Contains(errs, "fatal: "+tc.says) {
					t.Errorf("%s: no %q:\n%s", side.name, tc.says, errs)
				}
			}
			if codes[0] != codes[1] {
				t.Errorf("exit: git %d, ours %d", codes[0], codes[1])
			}
		})
	}
}

// ackOrNAK is a v0 acknowledgement: plain git, with fewer haves than a
// round, reads the first after its "done" (an ACK where upload-pack found
// a common commit), the helper in the answer to its first round.
func ackOrNAK(p string) bool { return p == "NAK\n" || strings.HasPrefix(p, "ACK ") }

// is matches the packet line.
func is(line string) func(string) bool { return func(p string) bool { return p == line } }

// before sends line, then the packet.
func before(line string) func(string) []pktOut {
	return func(p string) []pktOut { return []pktOut{{payload: line}, {payload: p}} }
}

// after sends the packet, then line.
func after(line string) func(string) []pktOut {
	return func(p string) []pktOut { return []pktOut{{payload: p}, {payload: line}} }
}

// instead sends out in place of the packet.
func instead(out ...pktOut) func(string) []pktOut { return func(string) []pktOut { return out } }

// TestHostileGrowingAcks: an upstream (protocol v2) that answers every
// round with acknowledgements of ids nobody sent — one and the same each
// round, or more each round (a hundred times its square). Plain git takes each new id for
// progress and sends every local commit; the helper counts an
// acknowledgement only of a have it sent, gives up after 256 haves in vain
// as git does, and so sends no more haves, in no more requests, than git
// (1.1× at most) — and both fetches succeed. (Before: the helper went on
// through every local commit, in more requests than git.)
func TestHostileGrowingAcks(t *testing.T) {
	env := env(t)
	base, up, mirror := mirrored(t, env)
	// Commits the upstream lacks, newer than its own, a ref on every
	// second one: haves in vain, before any the upstream has.
	work(t, env, mirror, 2500)
	var refs strings.Builder
	for i, c := range strings.Fields(gittest.Git(t, env, mirror, "rev-list", "--max-count=2500", "refs/work")) {
		if i%2 == 0 {
			fmt.Fprintf(&refs, "create refs/local/%d %s\n", i, c)
		}
	}
	gittest.GitIn(t, env, mirror, []byte(refs.String()), "update-ref", "--stdin")
	advance(t, env, up, 1, "")
	var mu sync.Mutex
	haves, requests, round := 0, 0, 0
	same := false // the lie: the same id each round, or more each round
	d := startHostile(t, env, up, lie{v2: true, packFor: func(req []string) []byte {
		mu.Lock()
		defer mu.Unlock()
		requests++
		for _, p := range req {
			if strings.HasPrefix(p, "have ") {
				haves++
			}
		}
		return nil
	}, resp: func(p string, flush bool) []pktOut {
		if flush || p != "acknowledgments\n" {
			return []pktOut{{payload: p, flush: flush}}
		}
		mu.Lock()
		round++
		n, from := 100*round*round, round*1000
		if same {
			n, from = 1, 7
		}
		mu.Unlock()
		out := []pktOut{{payload: p}}
		for i := range n {
			out = append(out, pktOut{payload: fmt.Sprintf("ACK %040x\n", from+i)})
		}
		return out
	}})
	for _, lie := range []bool{false, true} {
		mu.Lock()
		same = lie
		mu.Unlock()
		t.Run(map[bool]string{false: "growing", true: "same id"}[lie], func(t *testing.T) {
			countLies(t, env, base, mirror, d.url, &mu, &haves, &requests, &round)
		})
	}
}

// countLies fetches from the lying upstream at url with plain git and
// through the helper, each into a fresh mirror, and compares the haves
// and requests the upstream counted.
func countLies(t *testing.T, env []string, base, mirror, url string, mu *sync.Mutex, haves, requests, round *int) {
	var sent, asked [2]int
	for i, side := range hostileSides {
		dst := filepath.Join(t.TempDir(), "m.git")
		gittest.Git(t, env, base, "clone", "-q", "--mirror", mirror, dst)
		mu.Lock()
		*haves, *requests, *round = 0, 0, 0
		mu.Unlock()
		c := gittest.Exec(t, env, dst, nil, "git", "-c", "protocol.version=2", "fetch", side.prefix+url, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
		mustRun(t, c, side.name+" fetch")
		mu.Lock()
		sent[i], asked[i] = *haves, *requests
		mu.Unlock()
	}
	t.Logf("haves: git %d, helper %d; requests: git %d, helper %d", sent[0], sent[1], asked[0], asked[1])
	if sent[1] > sent[0]*11/10 || asked[1] > asked[0] {
		t.Errorf("the helper sent %d haves in %d requests, git %d in %d", sent[1], asked[1], sent[0], asked[0])
	}
}
