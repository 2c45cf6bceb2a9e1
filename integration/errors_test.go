package integration

import (
	"bytes"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// hostilePacks builds packs modelled on git's t5303, t5308, t5309 and more.
func hostilePacks() []hostile {
	var out []hostile
	add := func(name string, b *packtest.Builder, args ...string) {
		out = append(out, hostile{name: name, pack: b.Pack(), args: args})
	}
	good := &packtest.Builder{}
	good.Object(object.Blob, []byte("a blob\n"))
	good.Object(object.Blob, []byte("another blob\n"))
	valid := good.Pack()

	out = append(out, hostile{name: "empty input", pack: []byte{}})
	out = append(out, hostile{name: "bad signature", pack: append([]byte("PACC"), valid[4:]...)})
	v4 := append([]byte{}, valid...)
	v4[7] = 4
	out = append(out, hostile{name: "version 4", pack: v4})
	flipped := append([]byte{}, valid...)
	flipped[len(flipped)-1] ^= 1
	out = append(out, hostile{name: "bad trailer", pack: flipped})
	for _, n := range []int{5, 12, 13, 20, len(valid) - 21, len(valid) - 1} {
		out = append(out, hostile{name: "truncated", pack: valid[:n]})
	}
	zdata := append([]byte{}, valid...)
	zdata[15] ^= 0xff // inside the first entry's deflate data
	out = append(out, hostile{name: "flipped zlib byte", pack: zdata})

	many := &packtest.Builder{Count: 5}
	many.Object(object.Blob, []byte("x"))
	add("count too high", many)
	few := &packtest.Builder{Count: 1}
	few.Object(object.Blob, []byte("x"))
	few.Object(object.Blob, []byte("y"))
	add("count too low", few)

	liar := &packtest.Builder{}
	liar.Raw(object.Blob, 1<<30, nil, packtest.Deflate([]byte("abcdef")))
	add("1 GiB claim on 6 bytes", liar)
	short := &packtest.Builder{}
	short.Raw(object.Blob, 3, nil, packtest.Deflate([]byte("abcdef")))
	add("size smaller than data", short)
	badType := &packtest.Builder{}
	badType.Raw(5, 3, nil, packtest.Deflate([]byte("abc")))
	add("type 5", badType)
	type0 := &packtest.Builder{}
	type0.Raw(0, 3, nil, packtest.Deflate([]byte("abc")))
	add("type 0", type0)

	base := "delta base data, long enough to copy from\n"
	ofsFar := &packtest.Builder{}
	ofsFar.Object(object.Blob, []byte(base))
	ofsFar.Raw(object.OfsDelta, 4, packtest.OfsDistance(1000), packtest.Deflate([]byte("abcd")))
	add("ofs offset out of bound", ofsFar)
	ofsMid := &packtest.Builder{}
	ofsMid.Object(object.Blob, []byte(base))
	d := (&packtest.Delta{}).Copy(0, 5).Bytes(uint64(len(base)), 5)
	ofsMid.Raw(object.OfsDelta, int64(len(d)), packtest.OfsDistance(ofsMid.Offset(0)+1-12+8), packtest.Deflate(d))
	add("ofs offset into an entry", ofsMid)

	delta := func(name string, dd []byte) {
		b := &packtest.Builder{}
		b.Object(object.Blob, []byte(base))
		b.OfsDelta(0, dd)
		add(name, b)
	}
	n := uint64(len(base))
	delta("copy out of range", (&packtest.Delta{}).Copy(10, 100).Bytes(n, 100))
	delta("base size mismatch", (&packtest.Delta{}).Copy(0, 5).Bytes(n+1, 5))
	delta("delta opcode 0", (&packtest.Delta{}).Raw(0).Bytes(n, 0))
	delta("result size lies", (&packtest.Delta{}).Copy(0, 5).Bytes(n, 1<<40))
	// git believes the size and dies allocating 1 TiB; we check the
	// instructions first and report the delta.
	out[len(out)-1].ours = "fatal: failed to apply delta"
	delta("insert past end", (&packtest.Delta{}).Raw(50, 'x').Bytes(n, 50))

	a, b2 := "object A\n", "object B\n"
	dAB := (&packtest.Delta{}).Insert([]byte(a)).Bytes(uint64(len(b2)), uint64(len(a)))
	dBA := (&packtest.Delta{}).Insert([]byte(b2)).Bytes(uint64(len(a)), uint64(len(b2)))
	missing := &packtest.Builder{}
	missing.RefDelta(blobID(b2), dAB)
	add("missing base", missing)
	cycle := &packtest.Builder{}
	cycle.RefDelta(blobID(b2), dAB)
	cycle.RefDelta(blobID(a), dBA)
	add("delta cycle", cycle)
	recoverable := &packtest.Builder{}
	recoverable.RefDelta(blobID(b2), dAB)
	recoverable.RefDelta(blobID(a), dBA)
	recoverable.Object(object.Blob, []byte(a))
	add("cycle broken by a full copy", recoverable)
	out = append(out, hostile{name: "cycle with bases present", pack: cycle.Pack(), setup: func(t *testing.T, env []string, repo string) {
		gittest.WriteFile(t, repo, "a", a)
		gittest.WriteFile(t, repo, "b", b2)
		gittest.Git(t, env, repo, "hash-object", "-w", "a", "b")
	}})
	dup := &packtest.Builder{}
	for i := 0; i < 100; i++ {
		dup.Object(object.Blob, nil)
	}
	add("duplicate blobs", dup)
	add("duplicate blobs strict", dup, "--strict")

	chain := &packtest.Builder{}
	prev := "chain start\n"
	chain.Object(object.Blob, []byte(prev))
	for i := 0; i < 5000; i++ { // deeper than git's 4095 pack-objects limit
		next := prev[:len(prev)-1] + "x\n"
		chain.OfsDelta(i, (&packtest.Delta{}).Copy(0, uint32(len(prev)-1)).Insert([]byte("x\n")).Bytes(uint64(len(prev)), uint64(len(next))))
		prev = next
	}
	add("delta chain of 5000", chain)

	big := &packtest.Builder{}
	big.Object(object.Blob, bytes.Repeat([]byte("y"), 5000))
	add("max input size", big, "--max-input-size=100")
	add("max input size ok", big, "--max-input-size=100000")
	return out
}

// TestHostilePacksMatchGit runs git unpack-objects and ours on each hostile
// pack and requires the same exit code, the same last line on stderr, and
// the same objects afterwards.
func TestHostilePacksMatchGit(t *testing.T) {
	env := env(t)
	for _, h := range hostilePacks() {
		t.Run(h.name, func(t *testing.T) {
			var setup func(string)
			if h.setup != nil {
				setup = func(repo string) { h.setup(t, env, repo) }
			}
			git, ours := both(t, env, "", h.pack, setup, h.args...)
			if git.Code != ours.Code {
				t.Fatalf("exit %d, git %d\nours: %s\ngit:  %s", ours.Code, git.Code, ours.Stderr, git.Stderr)
			}
			if h.ours != "" {
				if ours.lastLine() != h.ours {
					t.Errorf("last line %q, want %q", ours.lastLine(), h.ours)
				}
			} else if git.Code != 0 && !sameMessage(git.lastLine(), ours.lastLine()) {
				t.Errorf("last line %q, git's %q", ours.lastLine(), git.lastLine())
			}
			if strings.Contains(string(ours.Stderr), "panic") || strings.Contains(string(ours.Stderr), "goroutine ") {
				t.Fatalf("crashed: %s", ours.Stderr)
			}
			// Ours keeps every object git keeps. It may keep more: a worker
			// finishes the objects queued before a failure, where git stops
			// at the failing entry; fsck shows they are sound.
			a, b := gittest.Objects(t, env, git.repo), gittest.Objects(t, env, ours.repo)
			for _, line := range strings.Split(strings.TrimSpace(a), "\n") {
				if line != "" && !strings.Contains(b, line) {
					t.Errorf("git kept %s, ours did not", line)
				}
			}
			gittest.Fsck(t, env, ours.repo)
		})
	}
}

// sameMessage compares git's last line with ours. zlib's own wording
// ("inflate: data stream error (…)") differs from Go's decompressor's.
func sameMessage(git, ours string) bool {
	if strings.HasPrefix(git, "error: inflate: data stream error") {
		return strings.HasPrefix(ours, "error: inflate")
	}
	return git == ours
}
