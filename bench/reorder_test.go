package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// TestReorderByDepth rewrites a pack of two delta trees: every full object
// comes first, then the deltas level by level, each OFS distance pointing
// at its base's new place, and every entry inflates to what it did.
func TestReorderByDepth(t *testing.T) {
	var nodes []packtest.Node
	for i := 0; i < 40; i++ {
		base := -1
		if i >= 2 {
			base = i - 2 // two chains
		}
		data := bytes.Repeat([]byte{byte('a' + i%2)}, 200)
		data = append(data, byte(i))
		nodes = append(nodes, packtest.Node{Data: data, Base: base})
	}
	b := &packtest.Builder{}
	if _, err := b.Forest(nodes, packtest.DepthFirst(nodes)); err != nil {
		t.Fatal(err)
	}
	out, err := reorderByDepth(b.Pack())
	if err != nil {
		t.Fatal(err)
	}
	f := pack.NewFile(bytes.NewReader(out), nil, object.SHA1)
	r := pack.NewReader(bytes.NewReader(out), pack.ReaderOptions{})
	seen := map[string]bool{}
	prevDepth := 0
	depth := map[int64]int{}
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.Type == object.OfsDelta {
			depth[e.Offset] = depth[e.BaseOffset] + 1
		}
		if depth[e.Offset] < prevDepth {
			t.Fatalf("entry at %d: depth %d after %d", e.Offset, depth[e.Offset], prevDepth)
		}
		prevDepth = depth[e.Offset]
		_, data, err := f.ObjectAt(e.Offset)
		if err != nil {
			t.Fatalf("entry at %d: %v", e.Offset, err)
		}
		seen[string(data)] = true
	}
	for i, n := range nodes {
		if !seen[string(n.Data)] {
			t.Errorf("node %d is not in the rewritten pack", i)
		}
	}
	if prevDepth != 19 {
		t.Errorf("deepest entry at depth %d, want 19", prevDepth)
	}
}
