package remote

import (
	"fmt"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

func TestClosure(t *testing.T) {
	sum := func(typ object.Type, data string) object.ID {
		id, err := object.SHA1.Sum(typ, []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	blob := sum(object.Blob, "hello\n")
	raw := blob.Bytes()
	tree := "100644 f\x00" + string(raw)
	treeID := sum(object.Tree, tree)
	commit := "tree " + treeID.String() + "\nauthor A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nm\n"
	commitID := sum(object.Commit, commit)
	store := loose.Open(batch.OS, t.TempDir(), loose.Options{})
	defer store.Close()

	// Any order of arrival; all there: connected.
	c := newClosure(object.SHA1)
	c.add(commitID, object.Commit, []byte(commit))
	c.add(blob, object.Blob, nil)
	c.add(treeID, object.Tree, []byte(tree))
	if !c.connected(store, []object.ID{commitID}) {
		t.Error("complete pack not connected")
	}
	// The blob missing, or a want that never came: not connected.
	c = newClosure(object.SHA1)
	c.add(treeID, object.Tree, []byte(tree))
	c.add(commitID, object.Commit, []byte(commit))
	if c.connected(store, []object.ID{commitID}) {
		t.Error("a missing blob went unnoticed")
	}
	c.add(blob, object.Blob, []byte("hello\n"))
	if c.connected(store, []object.ID{commitID, sum(object.Blob, "other")}) {
		t.Error("a missing want went unnoticed")
	}
	// Many trees naming the same blob (the second and later found in a
	// worker's cache of recorded ids), which never comes: not connected.
	c = newClosure(object.SHA1)
	var held int64
	c.reserve = func(n int64) { held += n }
	for i := 0; i < 3000; i++ {
		tr := tree + "100644 g" + fmt.Sprint(i) + "\x00" + string(raw)
		c.add(sum(object.Tree, tr), object.Tree, []byte(tr))
	}
	if c.connected(store, nil) {
		t.Error("a blob named by 3000 trees, missing, went unnoticed")
	}
	c.add(blob, object.Blob, nil)
	if !c.connected(store, nil) {
		t.Error("3000 trees and their blob not connected")
	}
	if held != 2*1024*perID {
		t.Errorf("reserved %d bytes for 3001 ids, want %d", held, 2*1024*perID)
	}
	c.release()
	if held != 0 {
		t.Errorf("%d bytes still reserved after release", held)
	}
	// An object whose links do not parse: not connected.
	c = newClosure(object.SHA1)
	c.add(sum(object.Commit, "junk"), object.Commit, []byte("junk"))
	if c.connected(store, nil) {
		t.Error("an unparsable commit counted as connected")
	}
}
