package remote

import (
	"errors"
	"fmt"
	"slices"

	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// healer returns what repairs the objects of the repository that the pack
// of up needs as delta bases and cannot read — an empty or corrupt loose
// object, as a crash of a writer that did not sync leaves it, which git
// trusts because the file exists, and on which every later fetch of git
// fails: it asks the upstream for exactly those ids (no haves: they would
// tell it that they are here) and writes what comes through the unpacker,
// which replaces the broken files. The request goes once the pack's answer
// is drained, on the same session over protocol v2 (one more round trip),
// on a new one over v0. Only an upstream that serves any object by its id
// can (see upstream.Upload.ByID); elsewhere there is no healer, and the
// fetch fails on the base, as git's does.
func (h *helper) healer(up *upstream.Upload, pack *upstream.Pack) func([]object.ID) error {
	if !up.ByID() {
		return nil
	}
	return func(ids []object.ID) error {
		left, err := h.heal(up, pack, ids)
		if err != nil {
			fmt.Fprintf(h.errw, "warning: cannot fetch the broken objects again: %s\n", describe(err, h.url))
		}
		if err == nil && len(left) > 0 {
			err = fmt.Errorf("'%s' did not send %s", h.url, left[0])
		}
		return err
	}
}

// heal fetches ids from up, after the answer that carried pack if any:
// exactly those objects, not what they reach (a commit's history), and
// only those written (writeAsked), as loose objects whatever the unpack
// limit: a heal keeps no pack, and so no .keep that nobody would remove.
// One request asks for at most the unpack limit of them (healChunk), so
// that no answer becomes more loose objects than git would explode from
// one. Each object that reads back right afterwards (for a repair: that a
// pack it wrote holds) gets git's warning that it was fetched again; it
// returns those that do not, with a warning each, and an error when no
// request could be made or answered.
func (h *helper) heal(up *upstream.Upload, pack *upstream.Pack, ids []object.ID) (left []object.ID, err error) {
	if pack != nil {
		if err := pack.Drain(); err != nil {
			return ids, err
		}
	}
	r, err := h.repository()
	if err != nil {
		return ids, err
	}
	limit, err := r.Config.UnpackLimit(false)
	if err != nil {
		return ids, err
	}
	chunk := healChunk(limit)
	if h.repair != nil {
		// A repair asks for what a verification found broken: as many
		// loose objects as that, whatever comes; fewer requests.
		chunk = refetchChunk
	}
	for part := range slices.Chunk(ids, chunk) {
		if err := h.fetchAgain(up, part); err != nil {
			return ids, err
		}
	}
	var bad map[object.ID]bool
	if h.repair != nil {
		bad, err = h.notFetched(r.Format, ids)
	} else {
		bad, err = h.unreadable(ids, false)
	}
	if err != nil {
		return ids, err
	}
	for _, id := range ids {
		if !bad[id] {
			fmt.Fprintf(h.errw, "warning: object %s of the repository was broken; fetched it again from '%s'\n", id, h.url)
		} else {
			left = append(left, id)
			fmt.Fprintf(h.errw, "warning: object %s of the repository is broken, and '%s' did not send it again\n", id, h.url)
		}
	}
	return left, nil
}

// fetchAgain asks up, on a fresh session where it needs one, for ids alone
// (no haves: they would tell it that they are here), and writes what of
// the answer was asked for.
func (h *helper) fetchAgain(up *upstream.Upload, ids []object.ID) error {
	fresh, err := up.Fresh()
	if err != nil {
		return err
	}
	if fresh != up {
		defer fresh.Close()
	}
	p, err := fresh.Fetch(&upstream.FetchRequest{Wants: ids, NoProgress: true, Only: true})
	if err != nil {
		return err
	}
	stats, err := h.writeAsked(p, ids)
	if err != nil {
		return err
	}
	err = p.Drain()
	h.account(stats, err)
	return err
}

// unreadable returns which of ids the repository cannot read back right:
// broken, or with missing, also absent.
func (h *helper) unreadable(ids []object.ID, brokenOnly bool) (map[object.ID]bool, error) {
	r, err := h.lookRepository()
	if err != nil {
		return nil, err
	}
	t, err := h.objects(r)
	if err != nil {
		return nil, err
	}
	bad := map[object.ID]bool{}
	for _, id := range ids {
		if _, _, err := t.Store.Read(id); err != nil {
			// Where a pack is known damaged (a repair), its copy fails
			// in the pack's own words (cut short, not inflating).
			if !errors.Is(err, loose.ErrCorrupt) && !errors.Is(err, loose.ErrNotFound) && h.repair == nil {
				return nil, err
			}
			bad[id] = !brokenOnly || errors.Is(err, loose.ErrCorrupt)
		}
	}
	return bad, nil
}
