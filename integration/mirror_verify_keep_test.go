//go:build !windows

package integration

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// --verify never makes what git can read unreadable: an index git reads
// stays until its verified replacement is durable, a stopped verify leaves
// the pack as it was, and a mended pack keeps its bitmap.

// readable counts the objects of the mirror dir's packs and loose files
// that git reads whole (git cat-file -p of each id its indexes list).
func readable(t *testing.T, env []string, dir string, ids []string) int {
	t.Helper()
	n := 0
	for _, id := range ids {
		if gittest.Exec(t, env, dir, nil, "git", "cat-file", "-p", id).Code == 0 {
			n++
		}
	}
	return n
}

// idxCRC is the offset of the CRC of the index's entry i (version 2: a
// header of 8 bytes, the fan-out of 256 words, the ids, then the CRCs).
func idxCRC(count, i int) int64 { return int64(8 + 256*4 + count*object.SHA1.Size() + i*4) }

// TestMirrorVerifyIndexAndBlob: one bit of an index's CRC table flipped
// (its own checksum fails; git reads the pack through it all the same)
// and one packed blob damaged: git reads all objects but the blob; after
// --verify every object reads, git fsck --full is clean, and the index
// replaced is kept in the quarantine. (Before: --verify removed the index
// first, then failed to make a new one from the damaged pack: no object
// read at all.)
func TestMirrorVerifyIndexAndBlob(t *testing.T) {
	env := env(t)
	_, _, tree, m := durableMirror(t, env, "-c", "fetch.unpackLimit=1")
	idx, path := packIndex(t, m)
	var ids []string
	for i := range idx.Count() {
		ids = append(ids, idx.ID(i).String())
	}
	blob, off, _ := packedBlob(t, env, m)
	flipByte(t, path, off+4)
	flipByte(t, strings.TrimSuffix(path, ".pack")+".idx", idxCRC(idx.Count(), idx.Count()/2))
	if got := readable(t, env, m, ids); got != len(ids)-1 {
		t.Fatalf("git reads %d of %d objects of the damaged mirror, want all but %s", got, len(ids), blob)
	}
	stats := filepath.Join(t.TempDir(), "stats")
	c := verifier(t, append(append([]string{}, env...), "GIT_REMOTE_DURABLE_STATS="+stats), tree)
	l := runnerLine(t, c, m)
	if c.Code != 0 || !strings.Contains(l, " ok ") || !strings.Contains(verdictOf(t, stats, m), "has a bad checksum") {
		t.Errorf("exit %d, %q", c.Code, l)
	}
	if got := readable(t, env, m, ids); got != len(ids) {
		t.Errorf("git reads %d of %d objects after --verify", got, len(ids))
	}
	gittest.Git(t, env, m, "fsck", "--full", "--strict")
	// Kept aside: the index replaced (and the pack the blob was fetched
	// into, once its good copy read right in the pack written again).
	kept, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*", "objects", "pack", "*.idx"))
	if !slices.ContainsFunc(kept, func(k string) bool {
		return filepath.Base(k) == filepath.Base(strings.TrimSuffix(path, ".pack")+".idx")
	}) {
		t.Errorf("the index replaced, kept aside: %v", kept)
	}
}

// TestMirrorVerifyStopped: a --verify stopped by SIGTERM at any moment of
// the rebuild of an index whose own checksum fails (the pack sound) leaves
// every object as readable as before, and a later --verify puts the index
// right. (Before: the index was removed before its replacement existed: a
// stop in between left no object readable.)
func TestMirrorVerifyStopped(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstreamOf(t, env, base, "up.git", "sha1", 200, 60)
	tree := filepath.Join(base, "tree")
	m := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "-c", "fetch.unpackLimit=1", "durable::file://"+up, m)
	idx, path := packIndex(t, m)
	var ids []string
	for i := range idx.Count() {
		ids = append(ids, idx.ID(i).String())
	}
	flipByte(t, strings.TrimSuffix(path, ".pack")+".idx", idxCRC(idx.Count(), 0))
	start := time.Now()
	c := verifier(t, env, tree)
	took := time.Since(start)
	mustRun(t, c, "a --verify of a copy")
	gittest.Git(t, env, m, "fsck", "--full")
	// Damaged again, each run is stopped a little later than the last,
	// over the whole of a run's time.
	for i := 1; i <= 8; i++ {
		idx, path = packIndex(t, m)
		flipByte(t, strings.TrimSuffix(path, ".pack")+".idx", idxCRC(idx.Count(), i))
		cmd := exec.Command(filepath.Join(binDir, "git-remote-durable"), "--verify", tree)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(took * time.Duration(i) / 8)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if got := readable(t, env, m, ids); got != len(ids) {
			t.Fatalf("stopped after %v: git reads %d of %d objects", took*time.Duration(i)/8, got, len(ids))
		}
		if tmp, _ := filepath.Glob(filepath.Join(m, "objects", "pack", "tmp_*")); len(tmp) > 0 {
			t.Errorf("stopped after %v: temporary files left: %v", took*time.Duration(i)/8, tmp)
		}
	}
	mustRun(t, verifier(t, env, tree), "a --verify to the end")
	gittest.Git(t, env, m, "fsck", "--full", "--strict")
	if _, err := os.Stat(m); err != nil {
		t.Fatal(err)
	}
}

// TestMirrorVerifyKeepsBitmap: a mirror packed with a bitmap, as a forge
// or git repack -b packs it, and one blob of the pack damaged: --verify
// writes the pack again with every entry in its place and its bitmap
// carried over, so that git rev-list --test-bitmap passes and a clone
// served from the mirror counts its objects from the bitmap again.
// (Before: the bitmap was dropped.)
func TestMirrorVerifyKeepsBitmap(t *testing.T) {
	env := env(t)
	base, _, tree, m := durableMirror(t, env)
	gittest.Git(t, env, m, "repack", "-adbq")
	if b := packFiles(t, m)["bitmap"]; len(b) != 1 {
		t.Fatalf("bitmaps: %v", b)
	}
	flipByte(t, packFiles(t, m)["pack"][0], func() int64 { _, off, _ := packedBlob(t, env, m); return off + 4 }())
	c := verifier(t, env, tree)
	if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, " ok ") {
		t.Fatalf("exit %d, %q", c.Code, l)
	}
	gittest.Git(t, env, m, "fsck", "--full", "--strict")
	packs := packFiles(t, m)
	if len(packs["bitmap"]) != 1 || !contains(packs["pack"], strings.TrimSuffix(packs["bitmap"][0], ".bitmap")+".pack") {
		t.Fatalf("after --verify: %v", packs)
	}
	gittest.Git(t, env, m, "rev-list", "--test-bitmap", "main")
	// A pack sent from the bitmap's pack as it is (git's "pack-reused"
	// count) is what only a bitmap allows.
	c = gittest.Exec(t, env, base, nil, "git", "clone", "--mirror", "--no-local", "--progress", m, filepath.Join(base, "downstream.git"))
	if total := lineWith(strings.ReplaceAll(string(c.Stderr), "\r", "\n"), "remote: Total"); c.Code != 0 || !strings.Contains(total, "pack-reused") || strings.Contains(total, "pack-reused 0") {
		t.Errorf("the clone served from the mirror did not use its bitmap: %q", total)
	}
}

// TestMirrorVerifyLostTipFetchesLittle: a fetch's loose objects a crash
// lost (the new tip commit, its trees and blobs) are fetched again by id
// with the other refs' tips as haves, from an upstream that does not
// filter (git's default): at most twice the objects lost come, not the
// tip's whole snapshot. The ref is never touched.
func TestMirrorVerifyLostTipFetchesLittle(t *testing.T) {
	env := env(t)
	base, up, tree, m := durableMirror(t, env)
	advance(t, env, up, 1, "")
	gittest.Git(t, env, m, "-c", "fetch.unpackLimit=100", "remote", "update", "--prune")
	tip := strings.TrimSpace(gittest.Git(t, env, m, "rev-parse", "main"))
	lost := strings.Fields(gittest.Git(t, env, m, "rev-list", "--objects", "--no-object-names", "main", "--not", "main~1"))
	for _, id := range lost {
		if err := os.Remove(filepath.Join(m, "objects", id[:2], id[2:])); err != nil {
			t.Fatal(err)
		}
	}
	snapshot := len(strings.Fields(gittest.Git(t, env, up, "ls-tree", "-r", "-t", "main")))
	stats := filepath.Join(base, "stats")
	c := verifier(t, append(append([]string{}, env...), "GIT_REMOTE_DURABLE_STATS="+stats), tree)
	if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, " ok ") {
		t.Fatalf("exit %d, %q", c.Code, l)
	}
	got := 0
	for _, l := range statsLines(t, stats, false) {
		var s struct{ Objects int }
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		got += s.Objects
	}
	if got == 0 || got > 2*len(lost) {
		t.Errorf("the mend fetched %d objects for %d lost (the tip's snapshot: %d)\n%s", got, len(lost), snapshot, strings.Join(statsLines(t, stats, false), "\n"))
	}
	if head := strings.TrimSpace(gittest.Git(t, env, m, "rev-parse", "main")); head != tip {
		t.Errorf("main is %s, want %s", head, tip)
	}
	gittest.Git(t, env, m, "fsck", "--full", "--strict")
}

// TestMirrorVerifyCutRefetchesWhole: a pack cut to 60 % (40 % of its
// objects lost) is mended by a reclone swapped in — one fetch of
// everything, not requests of ids whose answers each bring a snapshot:
// the bytes that came are those of one pack of the history; the mirror
// then holds one pack, fsck-clean, the old repository with the cut pack
// is kept aside whole, and nothing is left beside the mirror.
func TestMirrorVerifyCutRefetchesWhole(t *testing.T) {
	env := env(t)
	base, up, tree, m := durableMirror(t, env)
	idx, path := packIndex(t, m)
	size := fileSize(t, path)
	cutShort(t, idx, path, func(n int64) int64 { return n * 6 / 10 })
	stats := filepath.Join(base, "stats")
	c := verifier(t, append(append([]string{}, env...), "GIT_REMOTE_DURABLE_STATS="+stats), tree)
	if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, "recloned in") || !strings.Contains(l, "fetched everything again") {
		t.Fatalf("exit %d, %q", c.Code, l)
	}
	var got int64
	for _, l := range statsLines(t, stats, false) {
		var s struct{ Bytes int64 }
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatal(err)
		}
		got += s.Bytes
	}
	clone := int64(len(packOf(t, env, up, "", "--all")))
	if got > clone*11/10 {
		t.Errorf("the mend fetched %d bytes, a clone's pack is %d", got, clone)
	}
	gittest.Git(t, env, m, "fsck", "--full", "--strict")
	if a, b := refs(t, env, m), refs(t, env, up); a != b {
		t.Errorf("refs\n%s\nupstream\n%s", a, b)
	}
	if packs := packFiles(t, m)["pack"]; len(packs) != 1 {
		t.Errorf("packs: %v", packs)
	}
	if kept, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*", "repository", "objects", "pack", "*.pack")); len(kept) != 1 || fileSize(t, kept[0]) != size*6/10 {
		t.Errorf("the cut pack kept aside: %v", kept)
	}
	if beside, _ := filepath.Glob(filepath.Join(tree, ".*")); len(beside) != 0 {
		t.Errorf("left beside the mirror: %v", beside)
	}
}

// TestMirrorVerifyTurnsWhole: where what comes by id passes half of the
// packs' bytes (an upstream that does not filter sends a tree with all it
// holds), the mend fetches everything instead: the line says so, git
// fsck is clean, the damaged pack is set aside, and the pack it had begun
// to write again beside the fetch leaves no file behind.
func TestMirrorVerifyTurnsWhole(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	work := filepath.Join(base, "work")
	gittest.Git(t, env, base, "init", "-q", "-b", "main", work)
	big := make([]byte, 1<<20)
	rand.NewChaCha8([32]byte{5}).Read(big) // does not compress
	gittest.WriteFile(t, work, "big.bin", string(big))
	gittest.Git(t, env, work, "add", ".")
	gittest.Git(t, gittest.Tick(env, 1), work, "commit", "-q", "-m", "big")
	for i := range 20 {
		gittest.WriteFile(t, work, fmt.Sprintf("small%d.txt", i), strings.Repeat(fmt.Sprintf("line %d\n", i), 50))
	}
	gittest.Git(t, env, work, "add", ".")
	gittest.Git(t, gittest.Tick(env, 2), work, "commit", "-q", "-m", "small")
	up := filepath.Join(base, "up.git")
	gittest.Git(t, env, base, "clone", "-q", "--bare", work, up) // uploadpack.allowFilter unset
	tree := filepath.Join(base, "tree")
	m := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "-c", "fetch.unpackLimit=1", "durable::file://"+up, m)
	root, err := object.ParseID(strings.TrimSpace(gittest.Git(t, env, m, "rev-parse", "main^{tree}")))
	if err != nil {
		t.Fatal(err)
	}
	idx, path := packIndex(t, m)
	off, ok := idx.FindOffset(root)
	if !ok {
		t.Fatalf("the tip's tree %s is not in the pack", root)
	}
	flipByte(t, path, off+4)
	stats := filepath.Join(base, "stats")
	c := verifier(t, append(append([]string{}, env...), "GIT_REMOTE_DURABLE_STATS="+stats), tree)
	if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, "fetched everything again, as a reclone does") {
		t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
	}
	if b := string(readFile(t, stats)); !strings.Contains(b, `"refetched-whole":"what came by id passed half of what the packs hold"`) {
		t.Errorf("not turned whole by what came by id:\n%s", b)
	}
	gittest.Git(t, env, m, "fsck", "--full", "--strict")
	if kept, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*", "objects", "pack", filepath.Base(path))); len(kept) != 1 {
		t.Errorf("the damaged pack kept aside: %v", kept)
	}
	if temps, _ := filepath.Glob(filepath.Join(m, "objects", "pack", "tmp_*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

// TestMirrorVerifyManyPacks: a blob broken in each of five packs — more
// than are written again at once beside the fetch — is mended in every
// one: git fsck is clean, each damaged pack is set aside, and no
// temporary file is left.
func TestMirrorVerifyManyPacks(t *testing.T) {
	env := env(t)
	_, up, tree, m := durableMirror(t, env, "-c", "fetch.unpackLimit=1")
	for _, tag := range []string{"a", "b", "c", "d"} {
		advance(t, env, up, 1, tag)
		gittest.Git(t, env, m, "-c", "fetch.unpackLimit=1", "fetch", "-q", "origin")
	}
	idxs, _ := filepath.Glob(filepath.Join(m, "objects/pack/*.idx"))
	if len(idxs) != 5 {
		t.Fatalf("packs: %v", idxs)
	}
	var damaged []string
	for _, x := range idxs {
		idx, err := pack.ParseIndex(readFile(t, x), object.SHA1)
		if err != nil {
			t.Fatal(err)
		}
		path := strings.TrimSuffix(x, ".idx") + ".pack"
		for i := range idx.Count() {
			if strings.TrimSpace(gittest.Git(t, env, m, "cat-file", "-t", idx.ID(i).String())) == "blob" {
				off, _ := idx.Offset(i)
				flipByte(t, path, off+4)
				damaged = append(damaged, filepath.Base(path))
				break
			}
		}
	}
	if len(damaged) != 5 {
		t.Fatalf("damaged %d packs: %v", len(damaged), damaged)
	}
	c := verifier(t, env, tree)
	if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, " ok ") {
		t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
	}
	gittest.Git(t, env, m, "fsck", "--full", "--strict")
	for _, name := range damaged {
		if kept, _ := filepath.Glob(filepath.Join(m, "durable-quarantine", "*", "objects", "pack", name)); len(kept) != 1 {
			t.Errorf("%s kept aside: %v", name, kept)
		}
	}
	if temps, _ := filepath.Glob(filepath.Join(m, "objects", "pack", "tmp_*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}
