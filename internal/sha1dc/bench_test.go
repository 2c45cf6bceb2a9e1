package sha1dc

import (
	"crypto/sha1"
	"fmt"
	"hash"
	"os"
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
		{"sha1dc-go", func() hash.Hash { d := &digest{}; d.Reset(); return d }}, // its compression in Go
		{"sha1cd", sha1cd.New},
		{"crypto-sha1", sha1.New},
	}
	// Source text, as most of a repository is: more of its blocks meet a
	// vector's conditions (about 5 % against almost none of random data)
	// and take the software path.
	var text []byte
	for len(text) < 1<<20 {
		for _, name := range []string{"sha1dc.go", "check.go", "sha1dc_test.go", "block_amd64.s"} {
			src, err := os.ReadFile(name)
			if err != nil {
				b.Fatal(err)
			}
			text = append(text, src...)
		}
	}
	inputs := map[string][]byte{"text-1048576": text[:1<<20]}
	names := []string{}
	for _, size := range []int{200, 8 << 10, 1 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 131 >> 3)
		}
		inputs[fmt.Sprint(size)] = data
		names = append(names, fmt.Sprint(size))
	}
	for _, name := range append(names, "text-1048576") {
		data := inputs[name]
		size := len(data)
		for _, impl := range impls {
			b.Run(impl.name+"/"+name, func(b *testing.B) {
				if impl.name == "sha1dc-go" {
					saved := accelerated
					accelerated = false
					defer func() { accelerated = saved }()
				}
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
