package pack_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// chainPack builds a pack of one whole blob and n deltas, each on the
// one before, and returns it with where each entry starts and each
// object's data.
func chainPack(n int) ([]byte, []int64, [][]byte) {
	var b packtest.Builder
	data := [][]byte{[]byte("a blob at the end of a long chain\n")}
	starts := []int64{b.Offset(b.Object(object.Blob, data[0]))}
	for k := 1; k <= n; k++ {
		next := fmt.Appendf(bytes.Clone(data[k-1][:34]), "step %d\n", k)
		starts = append(starts, b.Offset(b.OfsDelta(k-1, packtest.DeltaFor(data[k-1], next))))
		data = append(data, next)
	}
	return b.Pack(), starts, data
}

// TestTreeDepth: a Tree of the deltas past the middle of a chain longer
// than pack.MaxDeltaDepth, its first entry's base outside it, finds right
// exactly the objects File.ObjectAt reads — those at most MaxDeltaDepth
// deltas from the whole blob — with one worker or two; and a Check whose
// context is cancelled returns, having found nothing right.
func TestTreeDepth(t *testing.T) {
	n := pack.MaxDeltaDepth + 3
	raw, starts, data := chainPack(n)
	from := n / 2
	tree := &pack.Tree{Starts: starts[from:], Bases: make([]int32, len(starts)-from)}
	for k := range tree.Bases {
		tree.Bases[k] = int32(k - 1)
	}
	tree.Bases[0] = pack.Outside
	ids := make([]object.ID, len(data))
	var loc locator
	for k, d := range data {
		ids[k], _ = object.SHA1.Sum(object.Blob, d)
		loc = append(loc, pack.IndexEntry{ID: ids[k], Offset: starts[k]})
	}
	for _, workers := range []int{1, 2} {
		check := func(ctx context.Context) []bool {
			return tree.Check(ctx, pack.TreeCheck{
				Workers: workers, Room: 1 << 30,
				NewFile: func() *pack.File { return pack.NewFile(bytes.NewReader(raw), loc, object.SHA1) },
				OK: func(k int, typ object.Type, d []byte) bool {
					id, _ := object.SHA1.Sum(typ, d)
					return id == ids[from+k]
				},
			})
		}
		right := check(context.Background())
		for k, r := range right {
			if want := from+k <= pack.MaxDeltaDepth; r != want {
				t.Fatalf("%d workers: the object %d deltas down found right: %v, want %v", workers, from+k, r, want)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for k, r := range check(ctx) {
			if r {
				t.Fatalf("%d workers, cancelled: entry %d read", workers, k)
			}
		}
	}
}
