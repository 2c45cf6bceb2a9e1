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
