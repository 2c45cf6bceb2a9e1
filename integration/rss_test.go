package integration

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// maxRSS bounds the peak resident memory of git-unpack-durable on a pack
// whose size fields lie: what it holds must follow what it received.
const maxRSS = 64 << 20

// liarPacks are packs of a few hundred bytes whose size fields claim
// gigabytes or more, each with the exit code the unpacker must give.
func liarPacks() []hostile {
	var out []hostile
	add := func(name string, b *packtest.Builder, args ...string) {
		out = append(out, hostile{name: name, pack: b.Pack(), args: args})
	}
	six := packtest.Deflate([]byte("abcdef"))
	b := &packtest.Builder{}
	b.Raw(object.Blob, 1<<30, nil, six)
	add("blob claims 1 GiB", b)
	b = &packtest.Builder{}
	b.Raw(object.Blob, 600<<20, nil, six) // above core.bigFileThreshold: streamed
	add("blob claims 600 MiB", b)
	b = &packtest.Builder{}
	b.Raw(object.Blob, 1<<62, nil, six)
	add("blob claims 4 EiB", b)
	b = &packtest.Builder{}
	for i := 0; i < 64; i++ {
		b.Raw(object.Blob, 1<<30+int64(i), nil, six)
	}
	add("64 blobs claim 1 GiB each, -r", b, "-r")
	b = &packtest.Builder{}
	for i := 0; i < 64; i++ {
		b.Raw(object.Commit, 1<<30, nil, six)
	}
	add("64 commits claim 1 GiB each, --strict -r", b, "--strict", "-r")
	b = &packtest.Builder{}
	b.Object(object.Blob, []byte("base"))
	b.Raw(object.OfsDelta, 1<<40, packtest.OfsDistance(b.Offset(0)), six)
	add("OFS delta claims 1 TiB", b)
	b = &packtest.Builder{}
	base := []byte("a delta base of some length\n")
	b.Object(object.Blob, base)
	for i := 0; i < 64; i++ {
		b.OfsDelta(0, (&packtest.Delta{}).Copy(0, 4).Bytes(uint64(len(base)), 1<<40+uint64(i)))
	}
	add("64 delta results claim 1 TiB each, -r", b, "-r")
	b = &packtest.Builder{}
	b.RefDelta(blobID("nowhere"), (&packtest.Delta{}).Copy(0, 4).Bytes(1<<30, 1<<30))
	add("REF delta on a missing base claims 1 GiB", b)

	// Delta bombs: "copy 64 KiB" is one byte, so a few bytes of delta can
	// describe gigabytes from a small base. git believes them and
	// allocates; ours refuses past 4× base and delta (or 64 MiB).
	big := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	for _, n := range []int{16 << 10, 1 << 20} {          // 1 GiB and 64 GiB results
		d := &packtest.Delta{}
		for i := 0; i < n; i++ {
			d.Copy(0, 0x10000)
		}
		b = &packtest.Builder{}
		b.Object(object.Blob, big)
		b.OfsDelta(0, d.Bytes(uint64(len(big)), uint64(n)<<16))
		add(fmt.Sprintf("delta bomb: %d bytes describe %d GiB", n, n>>14), b)
	}

	count := (&packtest.Builder{}).Pack()
	binary.BigEndian.PutUint32(count[8:], 0xffffffff)
	out = append(out, hostile{name: "header claims 4 billion entries", pack: count})
	return out
}

// TestHostileSizesBoundMemory runs git-unpack-durable on each liar pack,
// measures its peak RSS (ru_maxrss, which also covers the git it runs for
// configuration), and requires a clean failure within maxRSS, whatever the
// claims.
func TestHostileSizesBoundMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in KiB on Linux only")
	}
	env := env(t)
	tool := rusageTool(t, t.TempDir())
	good := &packtest.Builder{}
	good.Object(object.Blob, []byte("just a blob\n"))
	base := peakRSS(t, tool, env, gittest.Init(t, env, true, ""), good.Pack())
	t.Logf("a valid one-object pack: peak RSS %d KiB", base.rss>>10)
	for _, h := range liarPacks() {
		repo := gittest.Init(t, env, true, "")
		r := peakRSS(t, tool, env, repo, h.pack, h.args...)
		t.Logf("%s: exit %d, peak RSS %d KiB: %s", h.name, r.code, r.rss>>10, lastLine(r.stderr))
		if r.code == 0 || r.code > 128 || strings.Contains(r.stderr, "goroutine ") {
			t.Errorf("%s: exit %d\n%s", h.name, r.code, r.stderr)
		}
		if r.rss > maxRSS {
			t.Errorf("%s: peak RSS %d MiB, bound %d MiB", h.name, r.rss>>20, maxRSS>>20)
		}
		gittest.Fsck(t, env, repo)
	}
}
