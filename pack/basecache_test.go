package pack_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// countingReaderAt counts the entries File reads (one ReadAt per entry
// header at least).
type countingReaderAt struct {
	readerAt
	n atomic.Int64
}

func (r *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	r.n.Add(1)
	return r.readerAt.ReadAt(p, off)
}

// TestBaseCache reads the objects of a chain of 20 OFS deltas from their
// tip back to their root: with a cache, each read resolves from the
// nearest object cached and the pack is read far less; without one, as
// much as the chains are long. Both read the same objects. A cache too
// small for an object keeps nothing of it.
func TestBaseCache(t *testing.T) {
	b := &packtest.Builder{}
	prev := []byte("line 0\n")
	contents := [][]byte{prev}
	b.Object(object.Blob, prev)
	for i := 1; i < 20; i++ {
		next := append(append([]byte{}, prev...), fmt.Sprintf("line %d\n", i)...)
		b.OfsDelta(i-1, (&packtest.Delta{}).Copy(0, uint32(len(prev))).Insert(next[len(prev):]).Bytes(uint64(len(prev)), uint64(len(next))))
		contents = append(contents, next)
		prev = next
	}
	p := b.Pack()
	reads := map[string]int64{}
	for _, c := range []struct {
		name  string
		cache *pack.BaseCache
	}{{"none", nil}, {"cache", pack.NewBaseCache(1 << 20)}, {"tiny", pack.NewBaseCache(16)}} {
		r := &countingReaderAt{readerAt: p}
		f := pack.NewFile(r, nil, object.SHA1)
		f.Cache = c.cache
		for i := len(contents) - 1; i >= 0; i-- {
			typ, data, err := f.ObjectAt(b.Offset(i))
			if err != nil || typ != object.Blob || string(data) != string(contents[i]) {
				t.Fatalf("%s: object %d: %v %q %v", c.name, i, typ, data, err)
			}
		}
		reads[c.name] = r.n.Load()
	}
	if reads["cache"] > 2*int64(len(contents)) || reads["none"] < 5*reads["cache"] {
		t.Errorf("reads without a cache %d, with one %d: want the cache to save most", reads["none"], reads["cache"])
	}
	if reads["tiny"] != reads["none"] {
		t.Errorf("reads with a 16-byte cache %d, want %d as without", reads["tiny"], reads["none"])
	}
}

// TestObjectCacheCountsEachObject puts 100,000 objects of one byte into a
// cache of 1 MiB: what it keeps is bounded by what keeping each costs, not
// by their bytes alone (before, it kept all of them, some 15 MiB of
// bookkeeping for 100 KB of data).
func TestObjectCacheCountsEachObject(t *testing.T) {
	c := pack.NewObjectCache[int](1 << 20)
	const n = 100000
	for i := 0; i < n; i++ {
		c.Put(i, object.Blob, []byte{byte(i)})
	}
	kept := 0
	for i := 0; i < n; i++ {
		if _, _, ok := c.Get(i); ok {
			kept++
		}
	}
	if kept == 0 || kept > (1<<20)/100 {
		t.Errorf("kept %d of %d one-byte objects in 1 MiB", kept, n)
	}
	if _, _, ok := c.Get(n - 1); !ok {
		t.Error("the last object put is not kept")
	}
}
