package unpack

import (
	"fmt"
	"testing"

	"github.com/git-durable/git-durable/object"
)

// TestTable adds entries across chunks and index growths, some of the same
// id, in both formats: find returns the first entry of each id, and id the
// id given, index says which came twice, atOffset finds every entry by
// where it starts and none elsewhere.
func TestTable(t *testing.T) {
	for _, f := range []object.Format{object.SHA1, object.SHA256} {
		testTable(t, f)
	}
}

func testTable(t *testing.T, f object.Format) {
	tab := newTable(f)
	const n = 3*chunkEntries + 17
	ids := make([]object.ID, n)
	for k := int32(0); k < n; k++ {
		if got := tab.add(int64(12 + 10*k)); got != k {
			t.Fatalf("add %d returned %d", k, got)
		}
		ids[k], _ = f.Sum(object.Blob, fmt.Appendf(nil, "object %d", k%(n-100)))
		tab.setID(k, ids[k])
		if dup := tab.index(k); dup != (k >= n-100) {
			t.Fatalf("entry %d: dup %v", k, dup)
		}
	}
	if tab.len() != n {
		t.Fatalf("len %d", tab.len())
	}
	for k := int32(0); k < n; k++ {
		if got, ok := tab.find(ids[k]); !ok || got != k%(n-100) {
			t.Fatalf("find %d: %d %v", k, got, ok)
		}
		if tab.id(k) != ids[k] {
			t.Fatalf("id of %d: %v, want %v", k, tab.id(k), ids[k])
		}
		if got, ok := tab.atOffset(int64(12 + 10*k)); !ok || got != k {
			t.Fatalf("atOffset of %d: %d %v", k, got, ok)
		}
		if _, ok := tab.atOffset(int64(13 + 10*k)); ok {
			t.Fatalf("atOffset found an entry inside entry %d", k)
		}
	}
	missing, _ := f.Sum(object.Blob, []byte("not added"))
	if _, ok := tab.find(missing); ok {
		t.Error("found an id never added")
	}
	other := object.SHA256
	if f == other {
		other = object.SHA1
	}
	if wrong, _ := other.Sum(object.Blob, []byte("object 1")); func() bool { _, ok := tab.find(wrong); return ok }() {
		t.Error("found an id of the other format")
	}
	if _, ok := newTable(f).find(missing); ok {
		t.Error("an empty table found an id")
	}
}
