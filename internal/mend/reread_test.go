package mend

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// TestReread: the objects of a pack are read again in chains of deltas
// that cross the chunks the workers take, given out of order; exactly
// those whose bytes are bad, or whose base's are, are said, once each.
func TestReread(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	var b packtest.Builder
	var es []packed
	var datas [][]byte
	add := func(i int, data []byte) {
		id, _ := object.SHA1.Sum(object.Blob, data)
		es = append(es, packed{b.Offset(i), id})
		datas = append(datas, data)
	}
	// Chains of 5: a whole blob, then four deltas each on the one before.
	for c := range 200 {
		base := []byte(fmt.Sprintf("chain %d: %0200d\n", c, c))
		prev := b.Object(object.Blob, base)
		add(prev, base)
		for k := 1; k < 5; k++ {
			data := append(slices.Clone(datas[len(datas)-1]), fmt.Sprintf("step %d\n", k)...)
			prev = b.OfsDelta(prev, packtest.DeltaFor(datas[len(datas)-1], data))
			add(prev, data)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "p.pack")
	raw := b.Pack()
	// The delta 3 of chain 70 and the whole blob of chain 150: its four
	// deltas fail with it.
	for _, i := range []int{70*5 + 3, 150 * 5} {
		raw[es[i].off+5] ^= 0xff
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	// git index-pack refuses a pack it cannot read: the index is made of
	// the sound bytes, and the pack damaged after.
	sound := filepath.Join(dir, "sound.pack")
	os.WriteFile(sound, b.Pack(), 0o644)
	gittest.Git(t, env, dir, "index-pack", "-o", filepath.Join(dir, "p.idx"), sound)
	want := []object.ID{es[70*5+3].id, es[70*5+4].id}
	for k := range 5 {
		want = append(want, es[150*5+k].id)
	}
	data, err := os.ReadFile(filepath.Join(dir, "p.idx"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := pack.ParseIndex(data, object.SHA1)
	if err != nil {
		t.Fatal(err)
	}
	given := slices.Clone(es)
	slices.Reverse(given)
	got := reread(path, x, object.SHA1, given)
	slices.SortFunc(got, object.ID.Compare)
	slices.SortFunc(want, object.ID.Compare)
	if !slices.Equal(got, want) {
		t.Errorf("said %d: %v\nwant %d: %v", len(got), got, len(want), want)
	}
	if got := reread(filepath.Join(dir, "none.pack"), x, object.SHA1, es[:3]); len(got) != 3 {
		t.Errorf("a pack that does not open: %d said, want 3", len(got))
	}
}

// TestLaterFirst: the broken copies placed in their packs come last one
// first, the others after them in the order given.
func TestLaterFirst(t *testing.T) {
	id := func(b byte) object.ID {
		v, _ := object.SHA1.Sum(object.Blob, []byte{b})
		return v
	}
	a, b, c, d, e := id(1), id(2), id(3), id(4), id(5)
	s := size{at: map[object.ID]int64{a: 100, c: 300, e: 200}}
	ids := []object.ID{a, b, c, d, e}
	s.laterFirst(ids)
	if want := []object.ID{c, e, a, b, d}; !slices.Equal(ids, want) {
		t.Errorf("got %v, want %v", ids, want)
	}
}
