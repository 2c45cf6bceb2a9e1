package unpack

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// gate hands out a pack and, at each of stops, waits for ready(i), the
// i-th stop, before it goes on: the entries before a stop are all read,
// and resolved if ready says so, before the reader sees the next.
type gate struct {
	data  []byte
	stops []int64
	ready func(i int) bool
	pos   int64
	i     int
}

func (g *gate) Read(p []byte) (int, error) {
	if g.i < len(g.stops) && g.pos == g.stops[g.i] {
		if !g.ready(g.i) {
			return 0, fmt.Errorf("stop %d: the entries before it were not resolved", g.i)
		}
		g.i++
	}
	end := int64(len(g.data))
	if g.i < len(g.stops) {
		end = g.stops[g.i]
	}
	if g.pos == end {
		return 0, io.EOF
	}
	n := copy(p, g.data[g.pos:end])
	g.pos += int64(n)
	return n, nil
}

// TestFarBasesResolvedOnce is the order that cost the most before the
// second pass: breadth-first, every level's deltas arriving once the level
// before is resolved and out of the cache (the gate holds each level until
// the one before is done; 1 MiB of filler closes each, so that all of it
// goes to the workers). Every delta is put off, and applied once; the
// entries read back are the full objects at the roots of the trees. Before,
// each delta read its base back: kept, its chain from the pack, 360 to 480
// applications for 210 deltas, 460 to 640 entries inflated; exploded, its
// loose object, 310 to 350 entries inflated.
func TestFarBasesResolvedOnce(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var nodes []packtest.Node
	var levels [][]int
	filler := func(level int) int {
		data := make([]byte, 1<<20)
		rng.Read(data)
		nodes = append(nodes, packtest.Node{Data: data, Base: -1})
		return len(nodes) - 1
	}
	for d := 0; d < 8; d++ {
		var level []int
		for i := 0; i < 30; i++ {
			if d == 0 {
				if i < 4 {
					nodes = append(nodes, packtest.Node{Data: fmt.Appendf(bytes.Repeat([]byte("root line\n"), 200), "root %d\n", i), Base: -1})
					level = append(level, len(nodes)-1)
				}
				continue
			}
			prev := levels[d-1]
			base := prev[rng.Intn(len(prev)-1)] // not its filler
			data := append([]byte{}, nodes[base].Data...)
			copy(data[rng.Intn(len(data)-30):], fmt.Sprintf("<level %d delta %d>", d, i))
			nodes = append(nodes, packtest.Node{Data: data, Base: base, Ref: i%3 == 0})
			level = append(level, len(nodes)-1)
		}
		levels = append(levels, append(level, filler(d)))
	}
	var order []int
	for _, l := range levels {
		order = append(order, l...)
	}
	b := &packtest.Builder{}
	entry, err := b.Forest(nodes, order)
	if err != nil {
		t.Fatal(err)
	}
	var stops []int64
	for d := 1; d < len(levels); d++ {
		stops = append(stops, b.Offset(entry[levels[d][0]]))
	}
	for _, tc := range []struct {
		workers int
		keep    bool
	}{{1, true}, {2, true}, {1, false}, {2, false}} {
		workers := tc.workers
		m := memfstest.New(objs, objs+"/pack")
		store, policy := newStore(m)
		var mu sync.Mutex
		var reported int
		g := &gate{data: b.Pack(), stops: stops, ready: func(i int) bool {
			// Level 0 resolves as it comes; of the later levels, put off,
			// only the fillers.
			want := len(levels[0]) + i
			deadline := time.Now().Add(20 * time.Second)
			mu.Lock()
			defer mu.Unlock()
			for reported < want && time.Now().Before(deadline) {
				mu.Unlock()
				time.Sleep(time.Millisecond)
				mu.Lock()
			}
			return reported >= want
		}}
		opts := Options{Workers: workers, CacheSize: 1 << 10, Object: func(object.ID, object.Type, []byte) {
			mu.Lock()
			reported++
			mu.Unlock()
		}}
		if tc.keep {
			opts.Keep = &Keep{}
		}
		res, err := Run(context.Background(), g, store, policy, opts)
		if err != nil || reported != len(nodes) {
			t.Fatalf("%d workers, keep=%v: %+v %v; %d of %d objects", workers, tc.keep, res, err, reported, len(nodes))
		}
		// Kept, the roots are read back from the pack; exploded, from the
		// store, unless their loose objects are still being published.
		deltas := len(nodes) - 4 - len(levels)
		inflated := res.Work.Inflated == int64(len(nodes)+4)
		if !tc.keep {
			inflated = res.Work.Inflated <= int64(len(nodes)+4)
		}
		if !inflated || res.Work.Patched != int64(deltas) {
			t.Errorf("%d workers, keep=%v: %+v, want %d inflated, %d patched", workers, tc.keep, res.Work, len(nodes)+4, deltas)
		}
	}
}

// TestOneBaseReadOnce keeps a pack of 2,000 deltas on one base that the
// delta base cache cannot hold (64 KiB, where a cache of 64 KiB keeps
// objects of 16 KiB at most), the gate holding the deltas until the base
// is resolved: the deltas are put off, and the base is read back once for
// all of them, not once for each (before: 125 MiB read back for a pack of
// 1 MiB).
func TestOneBaseReadOnce(t *testing.T) {
	var base []byte
	for i := 0; len(base) < 64<<10; i++ {
		base = fmt.Appendf(base, "%07d\n", i)
	}
	filler := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(filler)
	b := &packtest.Builder{}
	b.Object(object.Blob, base)
	b.Object(object.Blob, filler)
	const n = 2000
	for i := 0; i < n; i++ {
		s := fmt.Sprint(i)
		b.OfsDelta(0, (&packtest.Delta{}).Copy(uint32(i*8), 16).Insert([]byte(s)).Bytes(uint64(len(base)), uint64(16+len(s))))
	}
	p := b.Pack()
	for _, workers := range []int{1, 2} {
		res, reported, err := runGated(p, []int64{b.Offset(2)}, []int{2}, workers, 64<<10)
		if err != nil || res.Objects != n+2 || reported != n+2 {
			t.Fatalf("%d workers: %+v %v", workers, res, err)
		}
		if res.Work.Patched != n || res.Work.Reread > 2*int64(len(base)) {
			t.Errorf("%d workers: %+v: want %d patched, the base read back once", workers, res.Work, n)
		}
	}
}

// TestSmallBaseReadBack keeps a pack whose first object, 4 KiB, leaves a
// 64 KiB cache behind 32 others before 100 deltas on it come: the base is
// read back from the pack once (by each worker that finds it gone at the
// same time, at most), and the deltas resolved as they arrive
// (the gate waits for them before the last object), none put off to the
// second pass after the stream. 1 MiB of filler, which the cache does not
// keep, closes each part, so that all of it goes to the workers.
func TestSmallBaseReadBack(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	obj := func(size int) []byte {
		data := make([]byte, size)
		rng.Read(data)
		return data
	}
	base := obj(4 << 10)
	b := &packtest.Builder{}
	b.Object(object.Blob, base)
	for range 32 {
		b.Object(object.Blob, obj(4<<10))
	}
	b.Object(object.Blob, obj(1<<20))
	const n = 100
	for i := range n {
		s := fmt.Sprint(i)
		b.OfsDelta(0, (&packtest.Delta{}).Copy(uint32(i*8), 16).Insert([]byte(s)).Bytes(uint64(len(base)), uint64(16+len(s))))
	}
	b.Object(object.Blob, obj(1<<20))
	b.Object(object.Blob, obj(4<<10))
	resolved := []int{34, 35 + n} // before each stop
	stops := []int64{b.Offset(34), b.Offset(35 + n)}
	for _, workers := range []int{1, 2} {
		res, _, err := runGated(b.Pack(), stops, resolved, workers, 64<<10)
		if err != nil || res.Objects != n+36 {
			t.Fatalf("%d workers: %+v %v", workers, res, err)
		}
		// Each worker may find the base gone at once, and read it back.
		reads := res.Work.Reread / int64(len(base))
		if res.Work.Patched != n || reads < 1 || reads > int64(workers) || res.Work.Reread%int64(len(base)) != 0 || res.Work.Inflated != n+36+reads {
			t.Errorf("%d workers: %+v: want %d patched, the base read back once (once by each worker at most)", workers, res.Work, n)
		}
	}
}

// TestReadBackBounded keeps a pack made to make the cache forget: 2,000
// deltas taking their bases in turn from 40 objects of 4 KiB, of which a
// 64 KiB cache holds 15. Every delta finds its base gone; the bases read
// back stay within the bytes of the pack, and the deltas past that wait
// for the second pass, which derives each base once.
func TestReadBackBounded(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	b := &packtest.Builder{}
	const bases, n = 40, 2000
	for range bases {
		data := make([]byte, 4<<10)
		rng.Read(data)
		b.Object(object.Blob, data)
	}
	filler := make([]byte, 1<<20)
	rng.Read(filler)
	b.Object(object.Blob, filler)
	for i := range n {
		s := fmt.Sprint(i)
		b.OfsDelta(i%bases, (&packtest.Delta{}).Copy(uint32(i%500*8), 16).Insert([]byte(s)).Bytes(4<<10, uint64(16+len(s))))
	}
	p := b.Pack()
	for _, workers := range []int{1, 2} {
		res, reported, err := runGated(p, []int64{b.Offset(bases + 1)}, []int{bases + 1}, workers, 64<<10)
		if err != nil || res.Objects != n+bases+1 || reported != n+bases+1 {
			t.Fatalf("%d workers: %+v %v", workers, res, err)
		}
		limit := int64(len(p)) + 4<<10 + bases*4<<10 // the budget, and the second pass's roots
		if res.Work.Patched != n || res.Work.Reread > limit {
			t.Errorf("%d workers: %+v: want %d patched, at most %d bytes read back", workers, res.Work, n, limit)
		}
	}
}

// runGated keeps the pack p with workers and a cache of cacheSize, through
// a gate that waits at stop i until resolved[i] objects were reported, and
// returns the result and the objects reported.
func runGated(p []byte, stops []int64, resolved []int, workers int, cacheSize int64) (Result, int, error) {
	store, policy := newStore(memfstest.New(objs, objs+"/pack"))
	var mu sync.Mutex
	reported := 0
	g := &gate{data: p, stops: stops, ready: func(i int) bool {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			mu.Lock()
			done := reported >= resolved[i]
			mu.Unlock()
			if done {
				return true
			}
		}
		return false
	}}
	opts := Options{Workers: workers, CacheSize: cacheSize, Keep: &Keep{}, Object: func(object.ID, object.Type, []byte) {
		mu.Lock()
		reported++
		mu.Unlock()
	}}
	res, err := Run(context.Background(), g, store, policy, opts)
	mu.Lock()
	defer mu.Unlock()
	return res, reported, err
}
