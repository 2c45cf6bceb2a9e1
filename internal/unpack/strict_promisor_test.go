package unpack

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// TestStrictPromisorPack: a filtered pack's tree names blobs that are not
// there, a .gitmodules among them. Kept as a promisor pack under Strict
// (fetch.fsckObjects in a partial clone), it passes, as git's index-pack
// --fsck-objects --promisor passes it; kept as a plain pack, it is refused
// as index-pack --strict refuses it.
func TestStrictPromisorPack(t *testing.T) {
	var missing [2]object.ID
	for i, data := range []string{"[submodule \"s\"]\n\tpath = s\n\turl = ../s\n", "file\n"} {
		missing[i], _ = object.SHA1.Sum(object.Blob, []byte(data))
	}
	tree := append(append([]byte("100644 .gitmodules\x00"), missing[0].Bytes()...), append([]byte("100644 f\x00"), missing[1].Bytes()...)...)
	treeID, _ := object.SHA1.Sum(object.Tree, tree)
	commit := []byte("tree " + treeID.String() + "\nauthor A <a@b.c> 1700000000 +0000\ncommitter C <c@d.e> 1700000000 +0000\n\nm\n")
	b := &packtest.Builder{}
	b.Object(object.Tree, tree)
	b.Object(object.Commit, commit)
	for _, promisor := range []bool{true, false} {
		m := memfstest.New(objs, objs+"/pack")
		store, policy := newStore(m)
		strict := fsck.Strict()
		strict.Promised = promisor
		opts := Options{Strict: strict, Messages: &bytes.Buffer{}, Keep: &Keep{Promisor: promisor}}
		res, err := Run(context.Background(), bytes.NewReader(b.Pack()), store, policy, opts)
		var se *StrictError
		switch {
		case promisor && (err != nil || res.Pack == ""):
			t.Errorf("promisor pack: %v, %+v", err, res)
		case !promisor && (!errors.As(err, &se) || se.Msg != "did not receive expected object "+missing[0].String()):
			t.Errorf("plain pack: %v, want the missing blob refused", err)
		}
	}
}
