package unpack

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// deltaForest returns n blobs of about size bytes in delta trees: each node but
// the first of each of roots trees is a delta on a random earlier node of
// its tree (an edit of a line of its base), deep chains and wide branches
// alike; refs of every 100 deltas are REF deltas.
func deltaForest(seed int64, roots, n, size, refs int) []packtest.Node {
	rng := rand.New(rand.NewSource(seed))
	nodes := make([]packtest.Node, 0, n)
	tree := make([][]int, roots)
	for i := 0; i < n; i++ {
		t := i % roots
		if len(tree[t]) == 0 {
			var data []byte
			for len(data) < size {
				data = fmt.Appendf(data, "tree %d line %d: %x\n", t, len(data), rng.Int63())
			}
			nodes = append(nodes, packtest.Node{Data: data, Base: -1})
		} else {
			// Mostly the newest nodes, so that chains grow deep.
			k := len(tree[t]) - 1 - int(rng.ExpFloat64()*3)%len(tree[t])
			base := tree[t][k]
			data := append([]byte{}, nodes[base].Data...)
			at := rng.Intn(len(data) - 40)
			copy(data[at:], fmt.Sprintf("<edit %d of %d>", i, base))
			nodes = append(nodes, packtest.Node{Data: data, Base: base, Ref: rng.Intn(100) < refs})
		}
		tree[t] = append(tree[t], i)
	}
	return nodes
}

// runForest unpacks the nodes written in order and checks that every
// object came out with its content, reported once; kept, that the pack's
// index finds each of them. It returns the run's Work.
func runForest(t *testing.T, name string, nodes []packtest.Node, order []int, opts Options) Work {
	t.Helper()
	b := &packtest.Builder{}
	if _, err := b.Forest(nodes, order); err != nil {
		t.Fatal(err)
	}
	m := memfstest.New(objs, objs+"/pack")
	store, policy := newStore(m)
	var mu sync.Mutex
	got := map[object.ID][]byte{}
	opts.Object = func(id object.ID, _ object.Type, data []byte) {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := got[id]; dup {
			t.Errorf("%s: %v reported twice", name, id)
		}
		got[id] = append([]byte{}, data...)
	}
	res, err := Run(context.Background(), bytes.NewReader(b.Pack()), store, policy, opts)
	if err != nil || res.Objects != len(nodes) {
		t.Fatalf("%s: %+v %v", name, res, err)
	}
	reader := loose.Open(m, objs, loose.Options{}) // sees the kept pack
	defer reader.Close()
	for i, n := range nodes {
		id, _ := object.SHA1.Sum(object.Blob, n.Data)
		if !bytes.Equal(got[id], n.Data) {
			t.Fatalf("%s: node %d (%v) resolved to %d bytes, want %d", name, i, id, len(got[id]), len(n.Data))
		}
		if typ, data, err := reader.Read(id); err != nil || typ != object.Blob || !bytes.Equal(data, n.Data) {
			t.Fatalf("%s: node %d (%v) read back: %v %v", name, i, id, typ, err)
		}
	}
	return res.Work
}

// orders are the orders a forest is written in: as pack-objects mostly
// writes it, every base as far back as it can be, at random, and, with
// REF deltas only, every delta before its base.
func orders(nodes []packtest.Node, refOnly bool) map[string][]int {
	o := map[string][]int{
		"depth-first":   packtest.DepthFirst(nodes),
		"breadth-first": packtest.BreadthFirst(nodes),
		"shuffled 1":    packtest.Shuffled(nodes, 1),
		"shuffled 2":    packtest.Shuffled(nodes, 2),
	}
	if refOnly {
		o["reversed"] = packtest.Reversed(nodes)
	}
	return o
}

// TestAnyOrderResolves: a forest of deep and wide delta trees (OFS
// deltas, mixed, REF deltas only) comes out right, kept or exploded, in
// every order, with one worker or two, with the delta base cache of the
// default size or one that keeps nothing. Each entry is inflated at most
// twice, whatever the order; kept, each is applied at most twice (once as
// it comes, once more at most on the way down to the deltas put off),
// exploded once.
func TestAnyOrderResolves(t *testing.T) {
	for _, refs := range []int{0, 30, 100} {
		nodes := deltaForest(int64(refs), 4, 400, 1200, refs)
		deltas := 0
		for _, n := range nodes {
			if n.Base >= 0 {
				deltas++
			}
		}
		for oname, order := range orders(nodes, refs == 100) {
			for _, keep := range []bool{false, true} {
				for _, cache := range []int64{0, 1 << 10} {
					for _, workers := range []int{1, 2} {
						name := fmt.Sprintf("%d%% REF, %s, keep=%v, cache %d, %d workers", refs, oname, keep, cache, workers)
						opts := Options{Workers: workers, CacheSize: cache}
						if keep {
							opts.Keep = &Keep{}
						}
						w := runForest(t, name, nodes, order, opts)
						// Exploded, every base of the second pass is one
						// loose object: no delta is applied twice.
						most := int64(deltas)
						if keep {
							most *= 2
						}
						if w.Patched < int64(deltas) || w.Patched > most || w.Inflated > 2*int64(len(nodes)) {
							t.Errorf("%s: %+v for %d entries, %d deltas", name, w, len(nodes), deltas)
						}
					}
				}
			}
		}
	}
}

// TestSecondPassDropsBases walks a tree whose bases do not fit in walkMax
// along one path: a binary tree of 64 KiB blobs, every node with two kids
// that have kids, under a walkMax of 256 KiB. The bases farthest up are
// dropped and derived again from the pack; every object still comes out
// right.
func TestSecondPassDropsBases(t *testing.T) {
	defer func(m int64) { walkMax = m }(walkMax)
	walkMax = 256 << 10
	var base []byte
	for i := 0; len(base) < 64<<10; i++ {
		base = fmt.Appendf(base, "%07d\n", i)
	}
	nodes := []packtest.Node{{Data: base, Base: -1}}
	for i := 1; i < 255; i++ {
		parent := (i - 1) / 2
		data := append([]byte{}, nodes[parent].Data...)
		copy(data[(i*997)%(len(data)-20):], fmt.Sprintf("<node %d>", i))
		nodes = append(nodes, packtest.Node{Data: data, Base: parent})
	}
	for _, workers := range []int{1, 2} {
		w := runForest(t, fmt.Sprintf("%d workers", workers), nodes, packtest.BreadthFirst(nodes), Options{Workers: workers, CacheSize: 1 << 10, Keep: &Keep{}})
		if w.Patched < int64(len(nodes)-1) {
			t.Errorf("%d workers: %+v", workers, w)
		}
	}
}
