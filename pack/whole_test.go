package pack_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// TestReadWhole reads entries that the reader inflates whole from its
// buffer (small ones) and ones it streams (past the buffer), with the same
// bytes, and a corrupt small entry with the error the streaming
// decompressor gives.
func TestReadWhole(t *testing.T) {
	datas, b := lettersPack(1, 20, 0, 1, 100, 5000, 300<<10, 40)
	// The last entry's compressed bytes with one flipped.
	bad := packtest.Deflate([]byte("a small blob, corrupt"))
	bad[len(bad)/2] ^= 0x10
	b.Raw(object.Blob, 21, nil, bad)
	p := b.Pack()

	r := pack.NewReader(bytes.NewReader(p), pack.ReaderOptions{})
	for i, want := range datas {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		// One Read with room for all, as the resolver reads an entry.
		got := make([]byte, len(want)+10)
		n, err := io.ReadFull(r, got)
		if err != io.ErrUnexpectedEOF && !(len(want) == 0 && err == io.EOF) {
			t.Fatalf("entry %d: %d bytes, %v", i, n, err)
		}
		if !bytes.Equal(got[:n], want) {
			t.Fatalf("entry %d: %d bytes differ from the %d written", i, n, len(want))
		}
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := io.ReadAll(r)
	var ie *pack.InflateError
	if !errors.As(err, &ie) || ie.Code != -3 {
		t.Fatalf("corrupt entry: %v, want the streaming decompressor's data error", err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the corrupt entry: %v, want the trailer", err)
	}
}

// TestEntryAtWhole reads entries back by offset: small ones from the
// reader's buffer, larger ones read whole, one past 16 MiB streamed, each
// as written; a larger entry with a byte flipped is a *CorruptError.
func TestEntryAtWhole(t *testing.T) {
	datas, b := lettersPack(3, 7, 50, 100<<10, 17<<20)
	bad := packtest.Deflate(datas[1])
	bad[len(bad)/2] ^= 0x04
	b.Raw(object.Blob, int64(len(datas[1])), nil, bad)
	file := pack.NewFile(bytes.NewReader(b.Pack()), nil, object.SHA1)
	for i, want := range datas {
		if _, got, err := file.EntryAt(b.Offset(i)); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("entry %d of %d bytes: %d bytes back, %v", i, len(want), len(got), err)
		}
	}
	var ce *pack.CorruptError
	if _, _, err := file.EntryAt(b.Offset(len(datas))); !errors.As(err, &ce) {
		t.Fatalf("the corrupt entry: %v, want a *CorruptError", err)
	}
}

// lettersPack builds a pack of blobs of the sizes given, each of random
// letters from the first k of the alphabet (seeded by seed), and returns
// them with the builder, for more entries to follow.
func lettersPack(seed uint64, k int, sizes ...int) ([][]byte, *packtest.Builder) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	b := &packtest.Builder{}
	var datas [][]byte
	for _, n := range sizes {
		d := make([]byte, n)
		for i := range d {
			d[i] = byte(rng.IntN(k)) + 'a'
		}
		datas = append(datas, d)
		b.Object(object.Blob, d)
	}
	return datas, b
}
