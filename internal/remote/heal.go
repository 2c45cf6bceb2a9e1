package remote

import (
	"fmt"

	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/object"
)

// healer returns what repairs the objects of the repository that the pack
// of up needs as delta bases and cannot read — an empty or corrupt loose
// object, as a crash of a writer that did not sync leaves it, which git
// trusts because the file exists, and on which every later fetch of git
// fails: it asks the upstream for exactly those ids (no haves: they would
// tell it that they are here) and writes what comes through the unpacker,
// which replaces the broken files. The request goes on the same session
// once the pack's answer is drained: one more round trip. Only an upstream
// that serves any object by its id can (protocol v2); elsewhere there is
// no healer, and the fetch fails on the base, as git's does.
func (h *helper) healer(up *upstream.Upload, pack *upstream.Pack) func([]object.ID) error {
	if !up.ByID() {
		return nil
	}
	return func(ids []object.ID) error {
		err := h.heal(up, pack, ids)
		if err != nil {
			fmt.Fprintf(h.errw, "warning: cannot fetch the broken objects again: %s\n", describe(err, h.url))
			return err
		}
		for _, id := range ids {
			fmt.Fprintf(h.errw, "warning: object %s of the repository was broken; fetched it again from '%s'\n", id, h.url)
		}
		return nil
	}
}

// heal fetches ids from up, after the answer that carried pack if any:
// exactly those objects, not what they reach (a commit's history).
func (h *helper) heal(up *upstream.Upload, pack *upstream.Pack, ids []object.ID) error {
	if pack != nil {
		if err := pack.Drain(); err != nil {
			return err
		}
	}
	p, err := up.Fetch(&upstream.FetchRequest{Wants: ids, NoProgress: true, Only: true})
	if err != nil {
		return err
	}
	if _, err := h.unpack(p, ids, nil); err != nil {
		return err
	}
	return p.Drain()
}
