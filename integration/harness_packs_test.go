package integration

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// The packs and objects a test makes: thin packs, the block tests' pack,
// big blobs, hostile packs, and objects that git would not write.

// thinPacks makes a history and returns two packs of it: the objects of
// main~20 (old), and a thin pack of what main adds to it (OFS deltas, and
// REF_DELTAs whose bases are only in old).
func thinPacks(t *testing.T, env []string) (old, thin []byte) {
	t.Helper()
	src := gittest.Init(t, env, true, "")
	gittest.History(t, env, src, 40, 60)
	return packOf(t, env, src, "main~20\n", "--revs"), packOf(t, env, src, "main\n^main~20\n", "--revs", "--thin", "--delta-base-offset")
}

// thinBases returns the objects of the object directory objects that the
// thin pack of the upstream's main since old uses as delta bases: what
// index-pack --fix-thin adds to it.
func thinBases(t *testing.T, env []string, up, objects, old string) []string {
	t.Helper()
	p := gittest.GitIn(t, env, up, []byte("main\n^"+old+"\n"), "pack-objects", "--revs", "--thin", "--stdout")
	scratch := filepath.Join(t.TempDir(), "scratch.git")
	gittest.Git(t, env, "", "init", "-q", "--bare", scratch)
	gittest.WriteFile(t, scratch, "objects/info/alternates", objects+"\n")
	gittest.GitIn(t, env, scratch, p, "index-pack", "--stdin", "--fix-thin")
	idx, _ := filepath.Glob(filepath.Join(scratch, "objects/pack/*.idx"))
	if len(idx) != 1 {
		t.Fatalf("index-pack left %v", idx)
	}
	b, err := os.ReadFile(idx[0])
	if err != nil {
		t.Fatal(err)
	}
	sent := map[string]bool{}
	for _, l := range strings.Split(gittest.Git(t, env, up, "rev-list", "--objects", "main", "^"+old), "\n") {
		if len(l) >= 40 {
			sent[l[:40]] = true
		}
	}
	var bases []string
	for _, l := range strings.Split(string(gittest.GitIn(t, env, scratch, b, "show-index")), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && !sent[f[1]] {
			bases = append(bases, f[1])
		}
	}
	return bases
}

// blockPack is the pack the block tests unpack: about 1,200 objects of a
// generated history, OFS deltas resolved into loose objects.
func blockPack(t *testing.T, env []string) []byte {
	t.Helper()
	return packOf(t, env, historyRepo(t, env), "main~600\n", "--revs", "--delta-base-offset")
}

// bigBlobPack returns a pack of one commit holding n incompressible blobs
// of size bytes each.
func bigBlobPack(t *testing.T, env []string, n, size int) []byte {
	t.Helper()
	dir := gittest.Init(t, env, false, "")
	rng := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	buf := make([]byte, size)
	for i := 0; i < n; i++ {
		for j := 0; j+8 <= size; j += 8 {
			binary.LittleEndian.PutUint64(buf[j:], rng.Uint64())
		}
		gittest.WriteFile(t, dir, fmt.Sprintf("blob%02d.bin", i), string(buf))
	}
	gittest.Git(t, env, dir, "add", ".")
	gittest.Git(t, env, dir, "commit", "-q", "-m", "big blobs")
	return packOf(t, env, dir, "HEAD\n", "--revs")
}

// packIDs returns the ids of the objects in pack, from stock git.
func packIDs(t *testing.T, env []string, pack []byte) []string {
	t.Helper()
	scratch := gittest.Init(t, env, true, "")
	gittest.GitIn(t, env, scratch, pack, "unpack-objects", "-q")
	out := gittest.Git(t, env, scratch, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
	return strings.Fields(out)
}

// hostile is a pack built to fail (or to succeed against the odds).
type hostile struct {
	name  string
	pack  []byte
	args  []string
	setup func(t *testing.T, env []string, repo string)
	// ours, when set, is our last line where we deliberately differ.
	ours string
}

// blobID is the SHA-1 id of a blob holding data.
func blobID(data string) object.ID {
	id, _ := object.SHA1.Sum(object.Blob, []byte(data))
	return id
}

// treeEntry is the raw tree entry of name, with mode and the object id
// hexID: what a tree written by hand holds.
func treeEntry(mode, name, hexID string) string {
	var raw bytes.Buffer
	for i := 0; i < len(hexID); i += 2 {
		var b byte
		for _, c := range hexID[i : i+2] {
			b = b<<4 | byte(strings.IndexRune("0123456789abcdef", c))
		}
		raw.WriteByte(b)
	}
	return mode + " " + name + "\x00" + raw.String()
}

// literally writes an object of type typ holding content into the
// repository dir with git hash-object --literally (no check of its
// format) and returns its id.
func literally(t *testing.T, env []string, dir, typ, content string) string {
	t.Helper()
	return strings.TrimSpace(string(gittest.GitIn(t, env, dir, []byte(content), "hash-object", "-t", typ, "--literally", "-w", "--stdin")))
}
