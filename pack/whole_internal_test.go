package pack

import (
	"bytes"
	"io"
	"testing"

	"github.com/klauspost/compress/zlib"
)

// TestWholeTaken checks which entries inflateWhole takes: those whose
// compressed bytes are buffered, read with room for all.
func TestWholeTaken(t *testing.T) {
	var body bytes.Buffer
	sizes := []int{10, 2000, 500 << 10, 10}
	for _, n := range sizes {
		data := bytes.Repeat([]byte{'x', 'y', byte(n)}, n/3+1)[:n]
		body.Write(AppendEntryHeader(nil, 3, int64(n)))
		zw, _ := zlib.NewWriterLevel(&body, zlib.NoCompression) // 500 KiB stays 500 KiB
		zw.Write(data)
		zw.Close()
	}
	p := append([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x04"), body.Bytes()...)
	p = append(p, make([]byte, 20)...) // the trailer is not read here
	r := NewReader(bytes.NewReader(p), ReaderOptions{})
	for i, n := range sizes {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if want := n < bufferSize; r.whole != want {
			t.Errorf("entry %d of %d bytes: inflated whole %v, want %v", i, n, r.whole, want)
		}
	}
}
