package remote

import (
	"errors"
	"fmt"

	"github.com/git-durable/git-durable/internal/mend"
	"github.com/git-durable/git-durable/internal/repo"
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
// exactly those objects, as loose objects whatever the unpack limit (a
// heal keeps no pack, and so no .keep that nobody would remove), in
// requests of at most the unpack limit (healChunk), so that no answer
// becomes more loose objects than git would explode from one
// (mend.Fetcher.Heal). It returns those that do not read back right
// afterwards, and an error when no request could be made or answered.
func (h *helper) heal(up *upstream.Upload, pack *upstream.Pack, ids []object.ID) (left []object.ID, err error) {
	if pack != nil {
		if err := pack.Drain(); err != nil {
			return ids, err
		}
	}
	f, err := h.fetcher()
	if err != nil {
		return ids, err
	}
	return f.Heal(up, ids)
}

// fetcher returns what fetches objects of the repository again by id for
// a heal: loose objects, in requests of at most the unpack limit, checked
// as the fetch's objects are, each answer accounted on a line of its own.
func (h *helper) fetcher() (*mend.Fetcher, error) {
	r, err := h.repository()
	if err != nil {
		return nil, err
	}
	limit, err := r.Config.UnpackLimit(false)
	if err != nil {
		return nil, err
	}
	_, strict, err := h.checks(r)
	if err != nil {
		return nil, err
	}
	t, err := h.objects(r)
	if err != nil {
		return nil, err
	}
	return &mend.Fetcher{Ctx: h.ctx, Store: t, Strict: strict, URL: h.url, Messages: h.errw,
		Alternates: loose.SplitAlternates(h.env.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES")),
		Chunk:      healChunk(limit), Finish: h.runErr, Account: h.account,
		Describe: func(err error) string { return describe(err, h.url) }}, nil
}

// healChunk is how many objects one heal request asks for: the unpack
// limit of the repository (git's default where it keeps every pack), so
// that no answer is written as more loose objects than git would explode
// from one.
func healChunk(limit uint32) int {
	if limit == 0 {
		return repo.DefaultUnpackLimit
	}
	return int(limit)
}

// healEach fetches ids again on sessions of their own (the session git
// listed on is kept for its fetch) and returns those it could not heal
// (mend.Fetcher.Each); a refusal that names none of them is said.
func (h *helper) healEach(ids []object.ID) []object.ID {
	f, err := h.fetcher()
	if err != nil {
		return ids
	}
	left, err := f.Each(func() (*upstream.Upload, error) { return h.remote.OpenUpload(nil) }, ids)
	var open *mend.OpenError
	if err != nil && !errors.As(err, &open) {
		fmt.Fprintf(h.errw, "warning: cannot fetch the broken objects again: %s\n", describe(err, h.url))
	}
	return left
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
	return mend.Unreadable(t.Store, ids, brokenOnly)
}
