package inflate

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"

	kzlib "github.com/klauspost/compress/zlib"
)

// packEntry is one entry's zlib stream and the size it inflates to.
type packEntry struct {
	z    []byte
	size int
}

// corpus is the entries of the pack GIT_DURABLE_INFLATE_PACK names (its
// .idx beside it, read with git show-index) or, without it, streams of the
// package's samples.
func corpus(b *testing.B) []packEntry {
	path := os.Getenv("GIT_DURABLE_INFLATE_PACK")
	if path == "" {
		var out []packEntry
		for _, data := range samples(rand.New(rand.NewPCG(7, 8))) {
			out = append(out, packEntry{compress(b, data, 6, true), len(data)})
		}
		return out
	}
	pack, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	idx, err := os.Open(strings.TrimSuffix(path, ".pack") + ".idx")
	if err != nil {
		b.Fatal(err)
	}
	defer idx.Close()
	cmd := exec.Command("git", "show-index")
	cmd.Stdin = idx
	listing, err := cmd.Output()
	if err != nil {
		b.Fatal(err)
	}
	var offs []int
	for _, line := range strings.Split(strings.TrimSpace(string(listing)), "\n") {
		off, _ := strconv.Atoi(strings.Fields(line)[0])
		offs = append(offs, off)
	}
	sort.Ints(offs)
	offs = append(offs, len(pack)-20)
	var out []packEntry
	for i := 0; i+1 < len(offs); i++ {
		p := pack[offs[i]:offs[i+1]]
		c := p[0]
		typ := c >> 4 & 7
		size := int(c & 15)
		shift := 4
		k := 1
		for c&0x80 != 0 {
			c = p[k]
			k++
			size |= int(c&0x7f) << shift
			shift += 7
		}
		switch typ {
		case 6:
			for p[k]&0x80 != 0 {
				k++
			}
			k++
		case 7:
			k += 20
		}
		out = append(out, packEntry{p[k:], size})
	}
	return out
}

// BenchmarkEntries inflates every entry of the corpus, with this package
// and with github.com/klauspost/compress/zlib as pack.Reader uses it.
func BenchmarkEntries(b *testing.B) {
	entries := corpus(b)
	total := 0
	for _, e := range entries {
		total += e.size
	}
	b.Run("inflate", func(b *testing.B) {
		var d Decoder
		var dst []byte
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, e := range entries {
				if cap(dst) < e.size {
					dst = make([]byte, e.size)
				}
				if _, err := d.Zlib(dst[:e.size], e.z); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(entries)), "ns/entry")
	})
	b.Run("klauspost", func(b *testing.B) {
		var zr io.ReadCloser
		var dst []byte
		r := bytes.NewReader(nil)
		b.SetBytes(int64(total))
		for b.Loop() {
			for _, e := range entries {
				r.Reset(e.z)
				var err error
				if zr == nil {
					zr, err = kzlib.NewReader(r)
				} else {
					err = zr.(kzlib.Resetter).Reset(r, nil)
				}
				if err != nil {
					b.Fatal(err)
				}
				if cap(dst) < e.size {
					dst = make([]byte, e.size)
				}
				if _, err := io.ReadFull(zr, dst[:e.size]); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(entries)), "ns/entry")
	})
}
