package loose_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// TestScan finds every broken loose object of a store — empty, cut short,
// with a flipped byte, hashing to another name — and no good one; says what
// the header of each still names; marks the one a pack of the store holds
// too, whose broken copy Drop removes.
func TestScan(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	repo := gittest.Init(t, env, true, "")
	objs := filepath.Join(repo, "objects")
	p := batch.New(batch.OS, objs, batch.Options{Method: batch.Batch, Force: true})
	s := loose.Open(batch.OS, objs, loose.Options{})
	contents := []string{"empty me", "truncate me", "flip me", "swap me", "pack me", "keep me"}
	var ids []object.ID
	for _, c := range contents {
		ids = append(ids, write(t, s, p, object.Blob, []byte(c)))
	}
	gittest.GitIn(t, env, repo, []byte(ids[4].String()+"\n"), "pack-objects", "-q", "objects/pack/pack")
	poison := func(id object.ID, f func([]byte) []byte) { poisonLoose(objs, id, f) }
	poison(ids[0], func([]byte) []byte { return nil })
	poison(ids[1], func(b []byte) []byte { return b[:len(b)-3] })
	poison(ids[2], func(b []byte) []byte { b[len(b)-1] ^= 0x40; return b })
	poison(ids[3], func([]byte) []byte { return deflate("blob 7\x00swap mE") })
	poison(ids[4], func([]byte) []byte { return nil })
	os.WriteFile(filepath.Join(objs, ids[5].String()[:2], "tmp_obj_half"), []byte("x"), 0o444) // a temporary file: not looked at

	s = loose.Open(batch.OS, objs, loose.Options{})
	broken, n, err := s.Scan(3)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(contents) || len(broken) != 5 {
		t.Fatalf("%d checked, %d broken (%v); want %d and 5", n, len(broken), broken, len(contents))
	}
	got := map[object.ID]loose.Broken{}
	for _, b := range broken {
		got[b.ID] = b
	}
	for i, want := range []struct {
		typ    object.Type
		packed bool
	}{{object.Bad, false}, {object.Blob, false}, {object.Blob, false}, {object.Blob, false}, {object.Bad, true}} {
		b, ok := got[ids[i]]
		if !ok || b.Type != want.typ || b.Packed != want.packed || b.Err == nil {
			t.Errorf("%q: %+v (found %v), want type %v, packed %v", contents[i], b, ok, want.typ, want.packed)
		}
	}
	if _, ok := got[ids[5]]; ok {
		t.Errorf("the good object was found broken")
	}
	if err := s.Drop(ids[4]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(loosePath(objs, ids[4])); !os.IsNotExist(err) {
		t.Errorf("Drop left the broken copy (%v)", err)
	}
	if typ, data, err := loose.Open(batch.OS, objs, loose.Options{}).Read(ids[4]); err != nil || typ != object.Blob || string(data) != "pack me" {
		t.Errorf("the packed copy: %v %q %v", typ, data, err)
	}
}
