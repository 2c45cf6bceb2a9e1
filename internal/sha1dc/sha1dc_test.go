package sha1dc

import (
	"bytes"
	"crypto/sha1"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/pjbgf/sha1cd"
	"github.com/pjbgf/sha1cd/ubc"
)

// reference is github.com/pjbgf/sha1cd's digest of data, and whether it saw
// a collision.
func reference(data []byte) ([]byte, bool) {
	h := sha1cd.New()
	h.Write(data)
	return h.(sha1cd.CollisionResistantHash).CollisionResistantSum(nil)
}

// ours writes data in pieces of the lengths cuts gives and returns the sum.
func ours(t testing.TB, data []byte, cuts func(int) int) ([]byte, bool) {
	// This package's hash even where New would give sha1cd's: without
	// SHA-NI, its compression in Go.
	h := &digest{}
	h.Reset()
	for len(data) > 0 {
		n := min(cuts(len(data)), len(data))
		h.Write(data[:n])
		data = data[n:]
	}
	return h.CollisionResistantSum(nil)
}

func whole(n int) int { return n }

func TestEveryLength(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 64*batch*3+200)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for n := 0; n <= len(data); n++ {
		want, wcol := reference(data[:n])
		got, col := ours(t, data[:n], whole)
		if !bytes.Equal(got, want) || col != wcol {
			t.Fatalf("length %d: %x %v, sha1cd %x %v", n, got, col, want, wcol)
		}
		if plain := sha1.Sum(data[:n]); !bytes.Equal(got, plain[:]) {
			t.Fatalf("length %d: %x, crypto/sha1 %x", n, got, plain)
		}
	}
}

func TestPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		data := make([]byte, rng.IntN(5000))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		want, _ := reference(data)
		got, _ := ours(t, data, func(int) int { return 1 + rng.IntN(200) })
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d, %d bytes in pieces: %x, sha1cd %x", round, len(data), got, want)
		}
	}
}

// TestSumKeepsState checks that Sum leaves the hash to go on with.
func TestSumKeepsState(t *testing.T) {
	if !accelerated {
		t.Skip("this CPU has no SHA extensions")
	}
	h := New()
	h.Write(bytes.Repeat([]byte("a"), 100))
	first := h.Sum(nil)
	h.Write(bytes.Repeat([]byte("b"), 100))
	want := sha1.Sum(append(bytes.Repeat([]byte("a"), 100), bytes.Repeat([]byte("b"), 100)...))
	if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
		t.Fatalf("after a Sum: %x, want %x", got, want)
	}
	if plain := sha1.Sum(bytes.Repeat([]byte("a"), 100)); !bytes.Equal(first, plain[:]) {
		t.Fatalf("first Sum %x, want %x", first, plain)
	}
	h.Reset()
	if got, want := h.Sum(nil), sha1.Sum(nil); !bytes.Equal(got, want[:]) {
		t.Fatalf("after Reset: %x, want %x", got, want)
	}
}

// TestAssemblyMatchesGo holds what the assembly writes down for each block
// — the chaining value it started from and message words 32 to 67 — to the
// software compression's.
func TestAssemblyMatchesGo(t *testing.T) {
	if !accelerated {
		t.Skip("this CPU has no SHA extensions")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	p := make([]byte, 64*batch)
	for i := range p {
		p[i] = byte(rng.Uint32())
	}
	var asm, soft scratch
	h1, h2 := iv, iv
	compress(&h1, p, &asm)
	compressBlocksGo(&h2, p, &soft)
	if h1 != h2 {
		t.Fatalf("chaining value %x, software %x", h1, h2)
	}
	for i := range batch {
		if asm.hs[i] != soft.hs[i] {
			t.Fatalf("block %d started from %x, software %x", i, asm.hs[i], soft.hs[i])
		}
		if asm.mid[i] != soft.mid[i] {
			t.Fatalf("block %d registers %x, software %x", i, asm.mid[i], soft.mid[i])
		}
		if [36]uint32(asm.w[i][32:68]) != [36]uint32(soft.w[i][32:68]) {
			t.Fatalf("block %d words 32-67 %x, software %x", i, asm.w[i][32:68], soft.w[i][32:68])
		}
	}
}

// collisions are the published SHA-1 collisions: the first 320 bytes of
// the SHAttered PDFs (identical prefix, 2017) and the two 640-byte
// messages of "SHA-1 is a Shambles" (chosen prefix, 2020).
var collisions = [][2]string{
	{"testdata/shattered-1.bin", "testdata/shattered-2.bin"},
	{"testdata/sha-mbles-1.bin", "testdata/sha-mbles-2.bin"},
}

func TestCollisionsDetected(t *testing.T) {
	for _, pair := range collisions {
		var plain [2][sha1.Size]byte
		for i, name := range pair {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			plain[i] = sha1.Sum(data)
			// Alone, and with more blocks after it than a batch holds,
			// written whole or a few bytes at a time.
			suffix := bytes.Repeat([]byte{0x5a}, 64*batch+17)
			for _, in := range [][]byte{data, append(data[:len(data):len(data)], suffix...)} {
				want, wcol := reference(in)
				if !wcol {
					t.Fatalf("%s: sha1cd saw no collision", name)
				}
				for _, cuts := range []func(int) int{whole, func(int) int { return 7 }} {
					got, col := ours(t, in, cuts)
					if !col {
						t.Errorf("%s (%d bytes): no collision detected", name, len(in))
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%s (%d bytes): %x, sha1cd %x", name, len(in), got, want)
					}
				}
			}
		}
		if plain[0] != plain[1] {
			t.Fatalf("%s and %s are not a collision of plain SHA-1", pair[0], pair[1])
		}
	}
}

// TestNearMisses flips each bit of the SHAttered blocks: no flipped copy is
// a collision, and each hashes as sha1cd hashes it (most of these blocks
// still meet a vector's conditions and take the software path).
func TestNearMisses(t *testing.T) {
	data, err := os.ReadFile("testdata/shattered-1.bin")
	if err != nil {
		t.Fatal(err)
	}
	for bit := 192 * 8; bit < len(data)*8; bit += 13 {
		in := bytes.Clone(data)
		in[bit/8] ^= 1 << (bit % 8)
		want, wcol := reference(in)
		got, col := ours(t, in, whole)
		if col != wcol || !bytes.Equal(got, want) {
			t.Fatalf("bit %d flipped: %x %v, sha1cd %x %v", bit, got, col, want, wcol)
		}
	}
}

func FuzzSHA1DC(f *testing.F) {
	for _, pair := range collisions {
		data, err := os.ReadFile(pair[0])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(7))
	}
	f.Add([]byte("blob 0\x00"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		want, wcol := reference(data)
		got, col := ours(t, data, func(int) int { return 1 + int(cut) })
		if col != wcol || !bytes.Equal(got, want) {
			t.Fatalf("%x %v, sha1cd %x %v", got, col, want, wcol)
		}
	})
}

// TestWithoutSHANI runs this package's hash with its compression in Go, as
// the tests do on a CPU without the SHA extensions, and New, which is
// sha1cd's there: the same digests, collisions detected.
func TestWithoutSHANI(t *testing.T) {
	saved := accelerated
	t.Cleanup(func() { accelerated = saved })
	accelerated = false
	for _, pair := range collisions {
		for _, name := range pair {
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, bytes.Repeat([]byte("tail"), 300)...)
			want, _ := reference(data)
			if sum, col := Sum(data); !col || !bytes.Equal(sum[:], want) {
				t.Fatalf("%s, New without SHA-NI: %x %v, want %x and a collision", name, sum, col, want)
			}
			if sum, col := ours(t, data, whole); !col || !bytes.Equal(sum, want) {
				t.Fatalf("%s in Go: %x %v, want %x and a collision", name, sum, col, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for n := range 300 {
		data := make([]byte, n*7)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		want := sha1.Sum(data)
		if sum, col := ours(t, data, whole); col || !bytes.Equal(sum, want[:]) {
			t.Fatalf("%d bytes in Go: %x %v", len(data), sum, col)
		}
	}
}

// TestRecompression checks the software steps against each other: a
// recompression without a message difference, from any step, gives back
// the block's own output.
func TestRecompression(t *testing.T) {
	for _, dv := range ubc.SHA1_dvs() {
		if dv.DvType != 0 && dv.TestT != 58 && dv.TestT != 65 {
			t.Errorf("vector %d starts at step %d: detect takes it from the chaining value, slowly", dv.MaskB, dv.TestT)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	block := make([]byte, BlockSize)
	for i := range block {
		block[i] = byte(rng.Uint32())
	}
	var w, zero [80]uint32
	expand(&w, block)
	h := [5]uint32{rng.Uint32(), rng.Uint32(), rng.Uint32(), rng.Uint32(), rng.Uint32()}
	want := h
	compressGo(&want, block)
	for step := range 81 {
		at := h
		forward(&at, 0, step, &w, nil)
		if got := recompress(&at, step, &w, &zero); got != want {
			t.Fatalf("from step %d: %x, want %x", step, got, want)
		}
	}
}
