package remote

import (
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
	// An object whose links do not parse: not connected.
	c = newClosure(object.SHA1)
	c.add(sum(object.Commit, "junk"), object.Commit, []byte("junk"))
	if c.connected(store, nil) {
		t.Error("an unparsable commit counted as connected")
	}
}
