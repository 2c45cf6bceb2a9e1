package remote

import (
	"fmt"
	"testing"

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

	// Any order of arrival; all there: connected.
	c := newClosure(object.SHA1)
	c.add(commitID, object.Commit, []byte(commit))
	c.add(blob, object.Blob, nil)
	c.add(treeID, object.Tree, []byte(tree))
	if !c.connected([]object.ID{commitID}) {
		t.Error("complete pack not connected")
	}
	// The blob missing, or a want that never came: not connected.
	c = newClosure(object.SHA1)
	c.add(treeID, object.Tree, []byte(tree))
	c.add(commitID, object.Commit, []byte(commit))
	if c.connected([]object.ID{commitID}) {
		t.Error("a missing blob went unnoticed")
	}
	c.add(blob, object.Blob, []byte("hello\n"))
	if c.connected([]object.ID{commitID, sum(object.Blob, "other")}) {
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
	if c.connected(nil) {
		t.Error("a blob named by 3000 trees, missing, went unnoticed")
	}
	c.add(blob, object.Blob, nil)
	if !c.connected(nil) {
		t.Error("3000 trees and their blob not connected")
	}
	// 3001 ids at most three quarters full: 4096 slots of 20 + 1 bytes.
	if held != 4096*21 || held != c.ids.bytes() {
		t.Errorf("reserved %d bytes for 3001 ids, the set holds %d, want %d", held, c.ids.bytes(), 4096*21)
	}
	c.release()
	if held != 0 {
		t.Errorf("%d bytes still reserved after release", held)
	}
	// An object whose links do not parse: not connected.
	c = newClosure(object.SHA1)
	c.add(sum(object.Commit, "junk"), object.Commit, []byte("junk"))
	if c.connected(nil) {
		t.Error("an unparsable commit counted as connected")
	}
}

// TestClosureTypes: every object arrives, but a link names one of another
// type than the link says: not connected, whichever comes first, also when
// the earlier links to the id were found in a worker's cache.
func TestClosureTypes(t *testing.T) {
	type obj struct {
		typ  object.Type
		data string
	}
	sum := func(o obj) object.ID {
		id, err := object.SHA1.Sum(o.typ, []byte(o.data))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	blob := obj{object.Blob, "hello\n"}
	raw := func(o obj) string { id := sum(o); return string(id.Bytes()) }
	tree := obj{object.Tree, "100644 f\x00" + raw(blob)}
	commitOf := func(tree obj, parents ...obj) obj {
		s := "tree " + sum(tree).String() + "\n"
		for _, p := range parents {
			s += "parent " + sum(p).String() + "\n"
		}
		return obj{object.Commit, s + "author A <a@b> 1 +0000\ncommitter A <a@b> 1 +0000\n\nm\n"}
	}
	tagOf := func(o obj, typ string) obj {
		return obj{object.Tag, "object " + sum(o).String() + "\ntype " + typ + "\ntag t\ntagger A <a@b> 1 +0000\n\nm\n"}
	}
	good := commitOf(tree)
	dirBlob := obj{object.Tree, "40000 d\x00" + raw(blob)}
	fileTree := obj{object.Tree, "100644 f\x00" + raw(tree)}
	many := func(mode string) []obj { // trees naming the blob as mode, then one as the other
		var out []obj
		for i := 0; i < 50; i++ {
			out = append(out, obj{object.Tree, mode + " f\x00" + raw(blob) + "100644 g" + fmt.Sprint(i) + "\x00" + raw(blob)})
		}
		return out
	}
	for name, objs := range map[string][]obj{
		"commit's tree is a blob":        {blob, commitOf(blob)},
		"parent is a tree":               {blob, tree, commitOf(tree, tree)},
		"parent is the tree, tree first": {blob, tree, commitOf(tree), commitOf(tree, tree)},
		"a directory is a blob":          {blob, dirBlob, commitOf(dirBlob)},
		"a file is a tree":               {blob, tree, fileTree, commitOf(fileTree)},
		"tag says commit, is a blob":     {blob, tree, good, tagOf(blob, "commit")},
		"tag says blob, is a commit":     {blob, tree, good, tagOf(good, "blob")},
		"links disagree, object last":    {tree, tagOf(blob, "tree"), blob},
		"cached blob links, then a dir":  append(append([]obj{blob}, many("100644")...), dirBlob),
	} {
		for _, order := range []string{"as listed", "reversed"} {
			c := newClosure(object.SHA1)
			for i := range objs {
				o := objs[i]
				if order == "reversed" {
					o = objs[len(objs)-1-i]
				}
				c.add(sum(o), o.typ, []byte(o.data))
			}
			if c.connected(nil) {
				t.Errorf("%s, %s: connected", name, order)
			}
		}
	}
	// The same objects without the lie: connected.
	c := newClosure(object.SHA1)
	for _, o := range append([]obj{blob, tree, good, commitOf(tree, good), tagOf(good, "commit")}, many("100755")...) {
		c.add(sum(o), o.typ, []byte(o.data))
	}
	if !c.connected([]object.ID{sum(good)}) {
		t.Error("an honest pack is not connected")
	}
	// A link to an object not in the pack is git's to check: not claimed.
	c = newClosure(object.SHA1)
	c.add(sum(good), object.Commit, []byte(good.data))
	c.add(sum(tree), object.Tree, []byte(tree.data))
	if c.connected(nil) {
		t.Error("a pack without the blob its tree names is connected")
	}
}
