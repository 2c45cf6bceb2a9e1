package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// laterRSS bounds the peak RSS of keeping a pack whose deltas wait for the
// second pass: maxRSS, the room the second pass reserves (32 MiB), and
// 256 bytes for each entry (what the run records of an entry, the forest
// of the second pass, the index being written).
func laterRSS(entries int) int64 { return maxRSS + 32<<20 + 256*int64(entries) }

// TestKeepPutOffDeltasBoundMemory keeps packs whose deltas the delta base
// cache cannot serve, so that they wait for the second pass: 200,000 tiny
// deltas on one 5 MiB base, and a chain of 10,000 deltas that starts with
// a delta on such a base. Peak RSS stays within laterRSS, the base is read
// back once for all its deltas (--stats), and the run ends as git
// index-pack --stdin ends on the same pack, with a byte-identical .idx.
func TestKeepPutOffDeltasBoundMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux only")
	}
	var base []byte
	for i := 0; len(base) < 5<<20; i++ {
		base = fmt.Appendf(base, "base line %d\n", i)
	}
	one := &packtest.Builder{}
	one.Object(object.Blob, base)
	for i := 0; i < 200000; i++ {
		s := fmt.Sprint(i)
		one.OfsDelta(0, (&packtest.Delta{}).Copy(uint32(i%1000)*16, 16).Insert([]byte(s)).Bytes(uint64(len(base)), uint64(16+len(s))))
	}
	chain := &packtest.Builder{}
	chain.Object(object.Blob, base)
	prev := base[:1024]
	k := chain.OfsDelta(0, (&packtest.Delta{}).Copy(0, 1024).Bytes(uint64(len(base)), 1024))
	for i := 1; i < 10000; i++ {
		next := append([]byte{}, prev...)
		copy(next[(i*61)%(len(next)-10):], fmt.Sprintf("<%d>", i))
		k = chain.OfsDelta(k, packtest.DeltaFor(prev, next))
		prev = next
	}
	env := env(t)
	tool := rusageTool(t, t.TempDir())
	for _, tc := range []struct {
		name    string
		pack    []byte
		entries int
	}{{"200,000 deltas on one base", one.Pack(), 200001}, {"a chain of 10,000", chain.Pack(), 10001}} {
		gitRepo := gittest.Init(t, env, true, "")
		git := unpackInto(t, env, gitRepo, "index-pack", tc.pack, "--stdin")
		repo := gittest.Init(t, env, true, "")
		r := peakRSS(t, tool, env, repo, tc.pack, "--keep", "--stats")
		t.Logf("%s, %d KiB pack: exit %d, peak RSS %d KiB", tc.name, len(tc.pack)>>10, r.code, r.rss>>10)
		if r.code != git.Code {
			t.Fatalf("%s: exit %d, git index-pack %d:\n%s", tc.name, r.code, git.Code, r.stderr)
		}
		if r.rss > laterRSS(tc.entries) {
			t.Errorf("%s: peak RSS %d MiB, bound %d MiB", tc.name, r.rss>>20, laterRSS(tc.entries)>>20)
		}
		var st struct{ Reread int64 }
		if err := json.Unmarshal([]byte(lastLine(r.stderr)), &st); err != nil || st.Reread > 2*int64(len(base)) {
			t.Errorf("%s: %v; read back %d bytes, more than the base twice\n%s", tc.name, err, st.Reread, r.stderr)
		}
		ours, theirs := packFiles(t, repo)["idx"], packFiles(t, gitRepo)["idx"]
		if len(ours) != 1 || len(theirs) != 1 {
			t.Fatalf("%s: indexes: ours %v, git's %v", tc.name, ours, theirs)
		}
		if a, b := readFile(t, ours[0]), readFile(t, theirs[0]); len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: .idx differs from git index-pack's (%d and %d bytes)", tc.name, len(a), len(b))
		}
		if out := gittest.Git(t, env, repo, "count-objects", "-v"); !strings.Contains(out, fmt.Sprintf("in-pack: %d\n", tc.entries)) {
			t.Errorf("%s: count-objects:\n%s", tc.name, out)
		}
		gittest.Fsck(t, env, repo)
	}
}
