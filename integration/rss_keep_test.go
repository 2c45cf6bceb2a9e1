package integration

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// waitingDeltas builds a pack of n REF deltas, each inserting size bytes
// (which compress to almost nothing) into a base blob that comes last, or
// not at all, each followed by an OFS delta on it. Until the base comes,
// every delta waits: n×size bytes of delta data from a pack of n KiB.
func waitingDeltas(n, size int, withBase bool) []byte {
	base := []byte("the base that every REF delta of this pack waits for\n")
	b := &packtest.Builder{}
	for i := 0; i < n; i++ {
		ins := bytes.Repeat([]byte{'.'}, size)
		copy(ins, fmt.Sprintf("delta %d\n", i))
		d := (&packtest.Delta{}).Copy(0, uint32(len(base))).Insert(ins)
		k := b.RefDelta(blobID(string(base)), d.Bytes(uint64(len(base)), uint64(len(base)+size)))
		tail := fmt.Sprintf("an OFS delta on delta %d\n", i)
		od := (&packtest.Delta{}).Copy(0, 64).Insert([]byte(tail))
		b.OfsDelta(k, od.Bytes(uint64(len(base)+size), uint64(64+len(tail))))
	}
	if withBase {
		b.Object(object.Blob, base)
	}
	return b.Pack()
}

// TestKeepWaitingDeltasBoundMemory keeps packs of 256 REF deltas of 1 MiB
// each (and an OFS delta on each) whose base comes last or never: peak RSS
// stays within maxRSS, and the run ends as git index-pack --stdin
// --fix-thin ends on the same pack — the same exit code and last line,
// and, when the base comes, a byte-identical .idx. A failed run leaves no
// file in objects/pack (git's leaves its tmp_pack_*).
func TestKeepWaitingDeltasBoundMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux only")
	}
	env := env(t)
	tool := rusageTool(t, t.TempDir())
	for _, withBase := range []bool{false, true} {
		p := waitingDeltas(256, 1<<20, withBase)
		gitRepo := gittest.Init(t, env, true, "")
		git := unpackInto(t, env, gitRepo, "index-pack", p, "--stdin", "--fix-thin", "--keep")
		repo := gittest.Init(t, env, true, "")
		r := peakRSS(t, tool, env, repo, p, "--keep")
		t.Logf("base comes=%v, %d KiB pack: exit %d, peak RSS %d KiB: %s", withBase, len(p)>>10, r.code, r.rss>>10, lastLine(r.stderr))
		if r.rss > maxRSS {
			t.Errorf("base comes=%v: peak RSS %d MiB, bound %d MiB", withBase, r.rss>>20, maxRSS>>20)
		}
		if r.code != git.Code || lastLine(r.stderr) != git.lastLine() {
			t.Errorf("base comes=%v: exit %d %q; git index-pack: exit %d %q", withBase, r.code, lastLine(r.stderr), git.Code, git.lastLine())
		}
		if !withBase {
			if names, _ := filepath.Glob(filepath.Join(repo, "objects/pack/*")); len(names) != 0 || looseCount(t, repo) != 0 {
				t.Errorf("a failed run left %v and %d loose objects", names, looseCount(t, repo))
			}
			continue
		}
		ours, theirs := packFiles(t, repo)["idx"], packFiles(t, gitRepo)["idx"]
		if len(ours) != 1 || len(theirs) != 1 {
			t.Fatalf("indexes: ours %v, git's %v", ours, theirs)
		}
		if a, b := readFile(t, ours[0]), readFile(t, theirs[0]); len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf(".idx differs from git index-pack's (%d and %d bytes)", len(a), len(b))
		}
		gittest.Fsck(t, env, repo)
	}
}

// TestExplodeWaitingDeltasBoundMemory explodes the packs of
// TestKeepWaitingDeltasBoundMemory: git unpack-objects holds every waiting
// delta (about 270 MiB here); ours spills them past 8 MiB, deflated, to a
// temporary file. Peak RSS stays within maxRSS, the run ends as git
// unpack-objects' does (exit code, last line, the same objects), and the
// temporary file is gone.
func TestExplodeWaitingDeltasBoundMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux only")
	}
	env := env(t)
	tool := rusageTool(t, t.TempDir())
	for _, withBase := range []bool{false, true} {
		p := waitingDeltas(256, 1<<20, withBase)
		gitRepo := gittest.Init(t, env, true, "")
		git := unpackInto(t, env, gitRepo, "unpack-objects", p, "-q")
		repo := gittest.Init(t, env, true, "")
		r := peakRSS(t, tool, env, repo, p, "-q")
		t.Logf("base comes=%v, %d KiB pack: exit %d, peak RSS %d KiB: %s", withBase, len(p)>>10, r.code, r.rss>>10, lastLine(r.stderr))
		if r.rss > maxRSS {
			t.Errorf("base comes=%v: peak RSS %d MiB, bound %d MiB", withBase, r.rss>>20, maxRSS>>20)
		}
		if r.code != git.Code || lastLine(r.stderr) != git.lastLine() {
			t.Errorf("base comes=%v: exit %d %q; git unpack-objects: exit %d %q", withBase, r.code, lastLine(r.stderr), git.Code, git.lastLine())
		}
		if names, _ := filepath.Glob(filepath.Join(repo, "objects/pack/*")); len(names) != 0 {
			t.Errorf("base comes=%v: left in objects/pack: %v", withBase, names)
		}
		if got, want := gittest.Objects(t, env, repo), gittest.Objects(t, env, gitRepo); got != want {
			t.Errorf("base comes=%v: objects differ from git's: %s", withBase, firstDiff(want, got))
		}
		gittest.Fsck(t, env, repo)
	}
}
