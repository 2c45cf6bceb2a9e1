//go:build !windows

package integration

import (
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
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
	if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, "mended") || !strings.Contains(l, "fetched 1 object again") {
		t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
	}
	gittest.Fsck(t, env, m)
	for _, id := range extra {
		if e := gittest.Exec(t, env, m, nil, "git", "cat-file", "-e", id); e.Code == 0 {
			t.Fatalf("%s, not asked for, is in the mirror", id)
		}
	}
	// The packs hold what they held: the blob's good copy in its place
	// in the damaged pack written again, the pack the repair fetched it
	// in set aside once the blob read right there.
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

// TestMirrorVerifyStillUpstream: an upstream that accepts the mend's
// connection and never answers is given up after a quarter of --timeout
// (its idle bound), well before the time limit: the line fails in those
// words, says how many objects were found broken, and the damaged pack is
// as it was.
func TestMirrorVerifyStillUpstream(t *testing.T) {
	env := env(t)
	_, _, tree, m := durableMirror(t, env, "-c", "fetch.unpackLimit=1")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // read nothing, send nothing
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	gittest.Git(t, env, m, "config", "remote.origin.url", "durable::git://"+ln.Addr().String()+"/m.git")
	_, off, path := packedBlob(t, env, m)
	flipByte(t, path, off+4)
	damaged := string(readFile(t, path))
	start := time.Now()
	c := verifier(t, env, "--timeout", "20s", tree)
	took := time.Since(start)
	l := runnerLine(t, c, m)
	if c.Code != 1 || !strings.Contains(l, " failed ") || !strings.Contains(l, "sent nothing for 5s: gave up") || !strings.Contains(l, "objects broken)") {
		t.Errorf("exit %d, %q", c.Code, l)
	}
	if took > 15*time.Second {
		t.Errorf("the verify took %v: more than the idle bound of 5s", took)
	}
	if string(readFile(t, path)) != damaged {
		t.Errorf("the damaged pack was changed")
	}
}

// TestMirrorVerifyUnreachable: a broken blob that no ref reaches any more
// (its branch deleted upstream and pruned there, the mirror's ref pruned
// by the update) and that the upstream does not have: --verify says it is
// unreachable, with its type, leaves it out of its pack (set aside with
// the pack) and exits 0; git fsck --full is clean and the next --verify
// finds nothing. (Before: it failed every run, for ever.)
func TestMirrorVerifyUnreachable(t *testing.T) {
	env := env(t)
	base, up, tree, m := durableMirror(t, env, "-c", "fetch.unpackLimit=1")
	work := filepath.Join(base, "work")
	gittest.Git(t, env, base, "clone", "-q", up, work)
	gittest.Git(t, env, work, "checkout", "-q", "-b", "doomed")
	gittest.WriteFile(t, work, "doomed.txt", "a blob only the doomed branch holds\n")
	gittest.Git(t, env, work, "add", "doomed.txt")
	gittest.Git(t, env, work, "commit", "-q", "-m", "doomed")
	gittest.Git(t, env, work, "push", "-q", "origin", "doomed")
	doomed := strings.TrimSpace(gittest.Git(t, env, work, "rev-parse", "HEAD:doomed.txt"))
	gittest.Git(t, env, m, "-c", "fetch.unpackLimit=1", "remote", "update", "--prune")
	gittest.Git(t, env, m, "repack", "-adq") // one pack, the doomed blob in it
	gittest.Git(t, env, up, "branch", "-D", "doomed")
	gittest.Git(t, env, up, "reflog", "expire", "--expire=now", "--all")
	gittest.Git(t, env, up, "gc", "-q", "--prune=now")
	gittest.Git(t, env, m, "remote", "update", "--prune")
	id, err := object.ParseID(doomed)
	if err != nil {
		t.Fatal(err)
	}
	_, off, path := packedBlobIf(t, env, m, func(b object.ID) bool { return b == id })
	flipByte(t, path, off+4)
	c := verifier(t, env, tree)
	l := runnerLine(t, c, m)
	if c.Code != 0 || !strings.Contains(l, " ok ") || !strings.Contains(l, "nothing reaches") || !strings.Contains(l, "blob ") {
		t.Fatalf("exit %d, %q", c.Code, l)
	}
	gittest.Git(t, env, m, "fsck", "--full", "--strict")
	if c := verifier(t, env, tree); c.Code != 0 || strings.Contains(runnerLine(t, c, m), "mended") {
		t.Errorf("a second verification: exit %d, %q", c.Code, runnerLine(t, c, m))
	}
}
