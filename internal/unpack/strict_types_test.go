package unpack

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// TestStrictLinkTypes: every object is in the pack, but two links name one
// object with different types — a commit whose parent is its own tree, a
// tag that says "commit" of a blob a tree names as a file. One of the two
// links is wrong whichever comes first; kept or exploded, --strict
// refuses the pack, as git index-pack --strict does ("is a tree, not a
// commit"), and does not write the object that lies (kept: nothing).
func TestStrictLinkTypes(t *testing.T) {
	blob := []byte("hello\n")
	blobID, _ := object.SHA1.Sum(object.Blob, blob)
	tree := append([]byte("100644 f\x00"), blobID.Bytes()...)
	treeID, _ := object.SHA1.Sum(object.Tree, tree)
	sig := "author A <a@b.c> 1700000000 +0000\ncommitter C <c@d.e> 1700000000 +0000\n\nm\n"
	commit := []byte("tree " + treeID.String() + "\n" + sig)
	commitID, _ := object.SHA1.Sum(object.Commit, commit)
	treeParent := []byte("tree " + treeID.String() + "\nparent " + treeID.String() + "\n" + sig)
	tag := []byte("object " + blobID.String() + "\ntype commit\ntag t\ntagger C <c@d.e> 1700000000 +0000\n\nm\n")
	type entry struct {
		typ  object.Type
		data []byte
	}
	wrongParent := entry{object.Commit, []byte("tree " + treeID.String() + "\nparent " + commitID.String() + "\nparent " + treeID.String() + "\n" + sig)}
	for name, entries := range map[string][]entry{
		"parent is the tree":           {{object.Blob, blob}, {object.Tree, tree}, {object.Commit, treeParent}},
		"tag says commit of a file":    {{object.Blob, blob}, {object.Tree, tree}, {object.Commit, commit}, {object.Tag, tag}},
		"the file after the tag":       {{object.Blob, blob}, {object.Commit, commit}, {object.Tag, tag}, {object.Tree, tree}},
		"wrong parent after the right": {{object.Blob, blob}, {object.Tree, tree}, {object.Commit, commit}, wrongParent},
	} {
		for _, keep := range []bool{false, true} {
			b := &packtest.Builder{}
			for _, e := range entries {
				b.Object(e.typ, e.data)
			}
			m := memfstest.New(objs)
			store, policy := newStore(m)
			opts := Options{Strict: fsck.Strict(), Messages: &bytes.Buffer{}}
			if keep {
				opts.Keep = &Keep{}
			}
			_, err := Run(context.Background(), bytes.NewReader(b.Pack()), store, policy, opts)
			var se *StrictError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "type") {
				t.Errorf("%s, kept %v: %v, want a refusal for the type", name, keep, err)
			}
			liar := entries[len(entries)-1] // the object that lies, but in one case
			if strings.HasPrefix(name, "the file after") {
				liar = entries[2]
			}
			liarID, _ := object.SHA1.Sum(liar.typ, liar.data)
			if has, _ := store.Has(liarID); has {
				t.Errorf("%s, kept %v: %s %s was written", name, keep, liar.typ, liarID)
			}
		}
	}
}
