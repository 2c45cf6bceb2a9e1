package mend

import (
	"slices"
	"testing"

	"github.com/git-durable/git-durable/object"
)

// TestAskOrder: blobs first, then what is of unknown type, then trees,
// then the rest, each group in the order given.
func TestAskOrder(t *testing.T) {
	id := func(b byte) object.ID {
		v, _ := object.SHA1.Sum(object.Blob, []byte{b})
		return v
	}
	tree1, blob1, unknown1, commit1, blob2, tree2, unknown2 := id(1), id(2), id(3), id(4), id(5), id(6), id(7)
	f := &Fetcher{linked: map[object.ID]object.Type{tree1: object.Tree, tree2: object.Tree, blob1: object.Blob, blob2: object.Blob, commit1: object.Commit}}
	got := f.askOrder([]object.ID{tree1, blob1, unknown1, commit1, blob2, tree2, unknown2})
	want := []object.ID{blob1, blob2, unknown1, unknown2, tree1, tree2, commit1}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
