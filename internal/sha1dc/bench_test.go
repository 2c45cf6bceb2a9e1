package sha1dc

import (
	"crypto/sha1"
	"fmt"
	"hash"
	"testing"

	"github.com/pjbgf/sha1cd"
)

// BenchmarkHash prints this package's throughput beside crypto/sha1 (plain
// SHA-1, no detection) and github.com/pjbgf/sha1cd, on sizes of git
// objects: a small tree, a source file, a large blob.
func BenchmarkHash(b *testing.B) {
	impls := []struct {
		name string
		new  func() hash.Hash
	}{
		{"sha1dc", New},
		{"sha1cd", sha1cd.New},
		{"crypto-sha1", sha1.New},
	}
	for _, size := range []int{200, 8 << 10, 1 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 131 >> 3)
		}
		for _, impl := range impls {
			b.Run(fmt.Sprintf("%s/%d", impl.name, size), func(b *testing.B) {
				h := impl.new()
				b.SetBytes(int64(size))
				var out [Size]byte
				for b.Loop() {
					h.Reset()
					h.Write(data)
					h.Sum(out[:0])
				}
			})
		}
	}
}
