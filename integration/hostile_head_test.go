package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// withSymref returns the first line of an advertisement ("<id>
// <name>\0<capabilities>\n") with HEAD's symref capability set to target.
func withSymref(pkt, target string) string {
	ref, caps, _ := strings.Cut(strings.TrimSuffix(pkt, "\n"), "\x00")
	var out []string
	for _, c := range strings.Fields(caps) {
		if !strings.HasPrefix(c, "symref=HEAD:") {
			out = append(out, c)
		}
	}
	return ref + "\x00" + strings.Join(append(out, "symref=HEAD:"+target), " ") + "\n"
}

// headCase is an upstream whose HEAD the advertisement names in a way of
// its own.
type headCase struct {
	name     string
	detached bool   // the upstream's HEAD is detached at main~1 (no branch there)
	target   string // the symref the advertisement gives HEAD ("": upload-pack's own)
	branches int    // this many more branches, sorted before HEAD's target
	// attached: no branch at HEAD's id but the target: git detaches HEAD
	// there, the helper gives HEAD by id and git's clone takes the branch
	// of the same id (guess_remote_head).
	attached string
}

var headCases = []headCase{
	{name: "target gone", detached: true, target: "refs/heads/gone"},
	{name: "target gone, main at HEAD's id", target: "refs/heads/gone", attached: "refs/heads/main"},
	{name: "target after many refs", target: "refs/heads/zzz", branches: 20000},
	{name: "target gone after many refs", detached: true, target: "refs/heads/gone", branches: 20000},
}

// headUpstream makes the case's upstream under base: a small history on
// main (a side branch, a tag).
func headUpstream(t *testing.T, env []string, base string, hc headCase) string {
	up := filepath.Join(base, "up.git")
	gittest.Git(t, env, base, "init", "-q", "--bare", "-b", "main", up)
	gittest.History(t, env, up, 3, 12)
	if hc.branches > 0 {
		var in strings.Builder
		for i := 0; i < hc.branches; i++ {
			fmt.Fprintf(&in, "create refs/heads/b%05d main~2\n", i)
		}
		gittest.GitIn(t, env, up, []byte(in.String()), "update-ref", "--stdin")
		gittest.Git(t, env, up, "pack-refs", "--all")
	}
	if hc.target == "refs/heads/zzz" {
		gittest.Git(t, env, up, "update-ref", "refs/heads/zzz", "main")
		gittest.Git(t, env, up, "symbolic-ref", "HEAD", "refs/heads/zzz")
	}
	if hc.detached {
		gittest.Git(t, env, up, "update-ref", "--no-deref", "HEAD", "main~1")
	}
	return up
}

// TestHostileHeadTarget: the advertisement names HEAD's target, a valid ref
// name the list does not hold (or holds after 20,000 others). Plain git
// on git:// resolves HEAD's symref against the whole list and, when the
// target is not there, clones with a detached HEAD at HEAD's id. Through
// the helper, over git:// (the streamed list), smart HTTP (the tap) and
// smart HTTP with a charset (go-git's maps): clone, --bare and --mirror
// exit 0 with a repository whose HEAD (rev-parse, symbolic-ref) and refs
// are that clone's, fsck clean (the 20,000-ref cases as --mirror alone). The one difference: where a branch has
// HEAD's id, git's clone takes that branch (the helper cannot give git a
// symref to a ref that is not listed without leaving HEAD with no id).
func TestHostileHeadTarget(t *testing.T) {
	env := env(t)
	for _, hc := range headCases {
		t.Run(hc.name, func(t *testing.T) {
			base := t.TempDir()
			up := headUpstream(t, env, base, hc)
			adv := func(pkts []string) []string { pkts[0] = withSymref(pkts[0], hc.target); return pkts }
			caps := func(pkt []byte) []byte { return []byte(withSymref(string(pkt), hc.target)) }
			web := rewriteCaps(httpBackend(t, env, base), caps)
			urls := map[string]string{
				"git":          startHostile(t, env, up, lie{adv: adv}).url,
				"http":         startHTTP(t, web) + "/up.git",
				"http-charset": startHTTP(t, withCharset(web)) + "/up.git",
			}
			modes := []string{"--no-checkout", "--bare", "--mirror"}
			if hc.branches > 0 {
				modes = modes[2:] // the list matters, not what the clone makes of it
			}
			for _, mode := range modes {
				t.Run(mode, func(t *testing.T) {
					want := cloneHead(t, env, urls["git"], mode, hc, false)
					for _, transport := range []string{"git", "http", "http-charset"} {
						if got := cloneHead(t, env, "durable::"+urls[transport], mode, hc, true); got != want {
							t.Errorf("%s: git on git://:\n%.600s\nours:\n%.600s", transport, want, got)
						}
					}
				})
			}
		})
	}
}

// cloneHead clones url and returns its HEAD and refs, checked with fsck;
// ours is the helper's clone, of which it checks and drops the one
// difference of an attached case. The oracle is plain git on the git://
// server: git speaks protocol v0 there, as the helper does everywhere, and
// meets the lie as it is told; plain git's own smart-HTTP client in v0
// fails such a clone ("no such remote ref"), its helper (remote-curl)
// listing the symref that cannot resolve.
func cloneHead(t *testing.T, env []string, url, mode string, hc headCase, ours bool) string {
	t.Helper()
	work := t.TempDir()
	dst := filepath.Join(work, "c")
	// A big POST is chunked without a large postBuffer, and CGI takes none.
	mustRun(t, gittest.Exec(t, env, work, nil, "git", "-c", "http.postBuffer=67108864", "clone", mode, url, dst), url+" clone")
	id := gittest.Exec(t, env, work, nil, "git", "-C", dst, "rev-parse", "--verify", "HEAD")
	sym := gittest.Exec(t, env, work, nil, "git", "-C", dst, "symbolic-ref", "-q", "HEAD")
	if id.Code != 0 {
		t.Fatalf("%s: no HEAD in the clone (exit %d): %s", url, id.Code, id.Stderr)
	}
	gittest.Fsck(t, env, dst)
	refs := gittest.Git(t, env, dst, "for-each-ref", "--format=%(objectname) %(refname)")
	on := strings.TrimSpace(string(sym.Stdout))
	if ours && hc.attached != "" {
		// git's HEAD detached; the helper's on the branch, which a clone
		// with a work tree also makes locally, with origin/HEAD.
		if on != hc.attached {
			t.Errorf("%s: HEAD on %q, want %s", url, on, hc.attached)
		}
		on = ""
		if mode == "--no-checkout" {
			var keep []string
			for _, l := range strings.SplitAfter(refs, "\n") {
				if !strings.HasSuffix(l, " "+hc.attached+"\n") && !strings.HasSuffix(l, " refs/remotes/origin/HEAD\n") {
					keep = append(keep, l)
				}
			}
			refs = strings.Join(keep, "")
		}
	}
	return "HEAD " + strings.TrimSpace(string(id.Stdout)) + " -> " + on + "\n" + refs
}
