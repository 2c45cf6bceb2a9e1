package inflate

import (
	"bytes"
	"compress/zlib"
	"errors"
	"math/rand/v2"
	"testing"

	kzlib "github.com/klauspost/compress/zlib"
)

// samples are inputs of the kinds a pack holds, compressed every way.
func samples(rng *rand.Rand) [][]byte {
	text := []byte("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A U Thor <author@example.com> 1112912053 -0700\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n")
	var out [][]byte
	for _, n := range []int{0, 1, 2, 3, 100, 257, 258, 259, 1000, 33000, 70000, 300000} {
		random := make([]byte, n)
		for i := range random {
			random[i] = byte(rng.Uint32())
		}
		repeated := bytes.Repeat(text, n/len(text)+1)[:n]
		runs := make([]byte, n)
		for i := range runs {
			runs[i] = byte(i / 300)
		}
		mixed := bytes.Clone(repeated)
		for i := 0; i < n; i += 1 + rng.IntN(50) {
			mixed[i] = byte(rng.Uint32())
		}
		out = append(out, random, repeated, runs, mixed)
	}
	return out
}

func compress(t testing.TB, data []byte, level int, std bool) []byte {
	var buf bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	var err error
	if std {
		w, err = zlib.NewWriterLevel(&buf, level)
	} else {
		w, err = kzlib.NewWriterLevel(&buf, level)
	}
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var d Decoder
	for _, data := range samples(rng) {
		for _, level := range []int{-2, 0, 1, 2, 5, 6, 9} {
			for _, std := range []bool{true, false} {
				z := compress(t, data, level, std)
				// The stream with more bytes after it, as in a pack.
				src := append(bytes.Clone(z), 0xde, 0xad, 0xbe, 0xef)
				dst := make([]byte, len(data))
				n, err := d.Zlib(dst, src)
				if err != nil || n != len(z) || !bytes.Equal(dst, data) {
					t.Fatalf("%d bytes, level %d (std %v): took %d of %d, %v", len(data), level, std, n, len(z), err)
				}
				// Every cut of the stream is short (pack.File reads more
				// on ErrShort); the odd cut checked.
				for cut := len(z) - 1; cut >= 0; cut -= 1 + cut/3 {
					if _, err := d.Zlib(dst, z[:cut]); !errors.Is(err, ErrShort) {
						t.Fatalf("%d bytes cut to %d of %d: %v", len(data), cut, len(z), err)
					}
				}
				// A size that is not the stream's is an error.
				if len(data) > 0 {
					if _, err := d.Zlib(make([]byte, len(data)-1), z); err == nil {
						t.Fatalf("%d bytes into one less: no error", len(data))
					}
				}
				if _, err := d.Zlib(make([]byte, len(data)+1), z); err == nil {
					t.Fatalf("%d bytes into one more: no error", len(data))
				}
			}
		}
	}
}

// TestAgainstKlauspost flips bytes of valid streams: whatever this decoder
// accepts, klauspost's decompressor must give the same bytes for.
func TestAgainstKlauspost(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var d Decoder
	for _, data := range samples(rng) {
		if len(data) > 40000 {
			continue
		}
		z := compress(t, data, 6, true)
		for range 40 {
			bad := bytes.Clone(z)
			bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
			compareKlauspost(t, &d, bad, len(data))
		}
	}
}

// compareKlauspost holds the decoder to klauspost's on src inflating to
// size bytes: it accepts no stream klauspost refuses, and gives the same
// bytes and length for each it accepts.
func compareKlauspost(t *testing.T, d *Decoder, src []byte, size int) {
	dst := make([]byte, size)
	n, err := d.Zlib(dst, src)
	if err != nil {
		return
	}
	r := bytes.NewReader(src)
	zr, kerr := kzlib.NewReader(r)
	if kerr != nil {
		t.Fatalf("accepted what klauspost refuses: %v", kerr)
	}
	want := make([]byte, size+1)
	got, kerr := io_ReadFull(zr, want)
	if got != size {
		t.Fatalf("accepted %d bytes where klauspost gives %d (%v)", size, got, kerr)
	}
	if !bytes.Equal(dst, want[:size]) {
		t.Fatal("accepted a stream klauspost inflates otherwise")
	}
	if consumed := len(src) - r.Len(); consumed != n {
		t.Fatalf("took %d bytes, klauspost %d", n, consumed)
	}
}

func io_ReadFull(r interface{ Read([]byte) (int, error) }, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := r.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func FuzzInflate(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, data := range samples(rng)[:16] {
		f.Add(compress(f, data, 6, true), uint16(len(data)))
	}
	f.Fuzz(func(t *testing.T, src []byte, size uint16) {
		var d Decoder
		compareKlauspost(t, &d, src, int(size))
	})
}
