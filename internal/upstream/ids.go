package upstream

import (
	"github.com/go-git/go-git/v6/plumbing"

	"github.com/git-durable/git-durable/object"
)

// hashOf is an object id as go-git's, for its encoders; the zero id is
// the null id of format f.
func hashOf(id object.ID, f object.Format) plumbing.Hash {
	var h plumbing.Hash
	if id.IsZero() {
		h.ResetBySize(f.Size())
		return h
	}
	h, _ = plumbing.FromBytes(id.Bytes())
	return h
}

// hashes is ids as go-git's.
func hashes(ids []object.ID, f object.Format) []plumbing.Hash {
	out := make([]plumbing.Hash, len(ids))
	for i, id := range ids {
		out[i] = hashOf(id, f)
	}
	return out
}
