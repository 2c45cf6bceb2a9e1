package remote

import (
	"encoding/binary"
	"testing"

	"github.com/git-durable/git-durable/object"
)

// TestIDSet records ids of both formats through several growths, changes
// some kinds, and finds each as recorded, the others absent; its memory
// is the slots, 21 or 33 bytes each, never more than twice the ids need
// plus a third.
func TestIDSet(t *testing.T) {
	for _, f := range []object.Format{object.SHA1, object.SHA256} {
		id := func(i int) object.ID {
			b := make([]byte, f.Size())
			binary.BigEndian.PutUint32(b, uint32(i)) // ids alike but for a prefix
			b[len(b)-1] = 0xff
			id, err := object.IDFromBytes(b)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		s := newIDSet(f)
		const n = 50000
		for i := range n {
			if !s.set(id(i), kind(object.Blob)) {
				t.Fatalf("%v: id %d not new", f, i)
			}
		}
		for i := 0; i < n; i += 3 {
			if s.set(id(i), kind(object.Tree)|arrived) {
				t.Fatalf("%v: id %d new again", f, i)
			}
		}
		for i := range n + 100 {
			want := kind(object.Blob)
			switch {
			case i >= n:
				want = 0
			case i%3 == 0:
				want = kind(object.Tree) | arrived
			}
			if got := s.get(id(i)); got != want {
				t.Fatalf("%v: id %d has %#x, want %#x", f, i, got, want)
			}
		}
		if s.n != n {
			t.Errorf("%v: %d ids, want %d", f, s.n, n)
		}
		count, arrivedN := 0, 0
		s.all(func(k kind) bool {
			count++
			if k&arrived != 0 {
				arrivedN++
			}
			return true
		})
		if count != n || arrivedN != (n+2)/3 {
			t.Errorf("%v: all saw %d ids, %d arrived; want %d, %d", f, count, arrivedN, n, (n+2)/3)
		}
		w := int64(f.Size() + 1)
		if s.bytes() > 8*n*w/3 || s.bytes()%w != 0 {
			t.Errorf("%v: %d bytes for %d ids of %d bytes a slot", f, s.bytes(), n, w)
		}
		var short object.ID
		if s.get(short) != 0 {
			t.Errorf("%v: the zero id found", f)
		}
	}
}
