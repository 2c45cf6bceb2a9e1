package object

import (
	"crypto/sha1"
	"encoding/binary"
	"hash"
	"math/bits"
	"math/rand"
	"testing"

	"github.com/pjbgf/sha1cd"
	"github.com/pjbgf/sha1cd/ubc"
)

// The parts of an object id's cost, each over the same MiB of data: SHA-1
// with collision detection as objects are hashed (sha1cd: SHA-NI where
// the CPU has it, then the unavoidable-bit-condition check of every
// block, and a recompression for each disturbance vector that survives
// it), plain SHA-1 as pack checksums are hashed, and the two steps a
// detection of one's own would add to plain SHA-1: the message expansion
// of each block and the check. They measure whether a pipeline of plain
// SHA-1 beside a separate check could be faster than sha1cd (docs/
// performance-notes.md, kept packs): go test -bench SHA1 ./object

// benchData is a MiB of pseudo-random bytes, the same in every run.
var benchData = func() []byte {
	b := make([]byte, 1<<20)
	rand.New(rand.NewSource(38)).Read(b)
	return b
}()

// expand is SHA-1's message expansion of the 64-byte block p.
func expand(p []byte, w *[80]uint32) {
	_ = p[63]
	for i := 0; i < 16; i++ {
		w[i] = binary.BigEndian.Uint32(p[4*i:])
	}
	for i := 16; i < 80; i++ {
		w[i] = bits.RotateLeft32(w[i-3]^w[i-8]^w[i-14]^w[i-16], 1)
	}
}

// benchHash hashes benchData with h, again and again.
func benchHash(b *testing.B, h hash.Hash) {
	b.SetBytes(int64(len(benchData)))
	for b.Loop() {
		h.Reset()
		h.Write(benchData)
		h.Sum(nil)
	}
}

func BenchmarkSHA1Detecting(b *testing.B) { benchHash(b, sha1cd.New()) }

func BenchmarkSHA1Plain(b *testing.B) { benchHash(b, sha1.New()) }

func BenchmarkSHA1Expansion(b *testing.B) {
	b.SetBytes(int64(len(benchData)))
	var w [80]uint32
	for b.Loop() {
		for p := benchData; len(p) >= 64; p = p[64:] {
			expand(p, &w)
		}
	}
}

// BenchmarkSHA1Check is the check alone on expanded blocks, and reports
// the share of blocks where a disturbance vector survives it (where
// sha1cd recompresses).
func BenchmarkSHA1Check(b *testing.B) {
	blocks := make([][80]uint32, len(benchData)/64)
	for i := range blocks {
		expand(benchData[64*i:], &blocks[i])
	}
	b.SetBytes(int64(len(benchData)))
	survived := 0
	for b.Loop() {
		survived = 0
		for i := range blocks {
			if ubc.CalculateDvMask(&blocks[i]) != 0 {
				survived++
			}
		}
	}
	b.ReportMetric(float64(survived)/float64(len(blocks)), "surviving/block")
}

// TestSHA1BenchParts holds the benchmark's pieces to what they stand for:
// sha1cd and crypto/sha1 agree on data without an attack, and expand is
// SHA-1's expansion — the 80 rounds run on its words give crypto/sha1's
// sum of a one-block message.
func TestSHA1BenchParts(t *testing.T) {
	a, col := sha1cd.Sum(benchData)
	if b := sha1.Sum(benchData); a != b || col {
		t.Fatalf("sha1cd %x (collision %v), crypto/sha1 %x", a, col, b)
	}
	msg := []byte("blob 3\x00abc")
	block := make([]byte, 64)
	copy(block, msg)
	block[len(msg)] = 0x80
	binary.BigEndian.PutUint64(block[56:], uint64(len(msg))*8)
	var w [80]uint32
	expand(block, &w)
	h := [5]uint32{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}
	v := h
	for i := 0; i < 80; i++ {
		var f, k uint32
		switch {
		case i < 20:
			f, k = v[1]&v[2]|^v[1]&v[3], 0x5A827999
		case i < 40:
			f, k = v[1]^v[2]^v[3], 0x6ED9EBA1
		case i < 60:
			f, k = v[1]&v[2]|v[1]&v[3]|v[2]&v[3], 0x8F1BBCDC
		default:
			f, k = v[1]^v[2]^v[3], 0xCA62C1D6
		}
		t := bits.RotateLeft32(v[0], 5) + f + v[4] + k + w[i]
		v = [5]uint32{t, v[0], bits.RotateLeft32(v[1], 30), v[2], v[3]}
	}
	var got [20]byte
	for i := range h {
		binary.BigEndian.PutUint32(got[4*i:], h[i]+v[i])
	}
	if want := sha1.Sum(msg); got != want {
		t.Errorf("the rounds on expand's words give %x, SHA-1 is %x", got, want)
	}
}
