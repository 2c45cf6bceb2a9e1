//go:build !windows

package integration

import (
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestMirrorVerifyAnswerBounded: an upstream (protocol v2 over git://)
// that answers the repair of one broken packed blob with that blob and 50
// objects nobody asked for. The blob is repaired, git fsck --strict is
// clean, and none of the 50 is in the mirror, loose or packed: the answer
// is not published as it came, only the object asked for is written.
func TestMirrorVerifyAnswerBounded(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	var mu sync.Mutex
	var answer []byte
	var broken string
	d := startHostile(t, env, up, lie{v2: true, packFor: func(req []string) []byte {
		mu.Lock()
		defer mu.Unlock()
		if broken == "" || !strings.Contains(strings.Join(req, ""), "want "+broken) {
			return nil
		}
		return answer
	}})
	tree := filepath.Join(base, "tree")
	m := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "-c", "fetch.unpackLimit=1", "durable::file://"+up, m)
	gittest.Git(t, env, m, "config", "remote.origin.url", "durable::"+d.url)
	blob, off, path := packedBlob(t, env, m)
	before := gittest.Git(t, env, m, "count-objects", "-v")

	scratch := gittest.Init(t, env, true, "")
	var extra []string
	for i := range 50 {
		gittest.WriteFile(t, base, "x", "not asked for "+strconv.Itoa(i)+"\n")
		extra = append(extra, strings.TrimSpace(gittest.Git(t, env, scratch, "hash-object", "-w", filepath.Join(base, "x"))))
	}
	gittest.GitIn(t, env, scratch, gittest.GitIn(t, env, up, nil, "cat-file", "blob", blob.String()), "hash-object", "-w", "--stdin")
	mu.Lock()
	broken = blob.String()
	answer = gittest.GitIn(t, env, scratch, []byte(broken+"\n"+strings.Join(extra, "\n")+"\n"), "pack-objects", "--stdout")
	mu.Unlock()

	flipByte(t, path, off+4)
	c := verifier(t, env, tree)
	if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, "mended: ") || !strings.Contains(l, "fetched 1 object again") {
		t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
	}
	gittest.Fsck(t, env, m)
	for _, id := range extra {
		if e := gittest.Exec(t, env, m, nil, "git", "cat-file", "-e", id); e.Code == 0 {
			t.Fatalf("%s, not asked for, is in the mirror", id)
		}
	}
	// The packs hold what they held: the blob left out of the damaged
	// pack, in the pack the repair fetched it in.
	inPack := func(s string) int {
		for _, l := range strings.Split(s, "\n") {
			if v, ok := strings.CutPrefix(l, "in-pack: "); ok {
				n, _ := strconv.Atoi(v)
				return n
			}
		}
		return -1
	}
	if a, b := inPack(gittest.Git(t, env, m, "count-objects", "-v")), inPack(before); a != b {
		t.Errorf("in-pack %d after, %d before", a, b)
	}
}
