package mend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// Fetcher fetches objects again by their ids from an upstream into the
// object store of a repository: exactly the objects asked for, not what
// they reach (a commit's history), and only those written. The helper's
// heal writes them as loose objects where the store lacks a good copy (a
// delta base a crash broke); a mend (Packs) keeps what comes as packs of
// their own, also where a damaged pack holds the objects — one file and
// one flush for thousands, read by git where the damaged copy fails.
type Fetcher struct {
	Ctx   context.Context
	Store *objstore.Session
	// Strict, when set, checks every object that comes as
	// fetch.fsckObjects does.
	Strict *fsck.Options
	// Alternates are more object directories an answer may take delta
	// bases from (GIT_ALTERNATE_OBJECT_DIRECTORIES).
	Alternates []string
	// Messages takes git's warnings, a line each.
	Messages io.Writer
	// URL names the upstream in messages.
	URL string
	// Packs keeps what comes as packs of its own (a mend); else each
	// object asked for is written as a loose object (a heal).
	Packs bool
	// Chunk bounds the objects one request asks for: a heal asks for the
	// unpack limit at most, so that no answer becomes more loose objects
	// than git would explode from one.
	Chunk int
	// Finish, when set, is what becomes of an unpack of an answer that
	// failed or left bytes after the pack: it accounts the run's stats and
	// returns the error the fetch reports. Nil: the error as it is.
	Finish func(in io.Reader, run *objstore.Run, res unpack.Result, err error) error
	// Account, when set, is told of each answer's stats once it is
	// written, and of the error draining it ended with.
	Account func(objstore.Stats, error)
	// Describe, when set, says an upstream's failure in git's words (it
	// names the ids a request was refused for); nil: err.Error().
	Describe func(error) string
	// Haves, when set, are sent with each request: commits whose history
	// the repository holds, so that the answer leaves out what they reach
	// (a ref's missing commit comes without the trees and blobs it shares
	// with its parent), and all the answer holds is kept (Packs): what
	// the repository lacks. Never with broken copies: a want a have
	// reaches is not sent at all.
	Haves []object.ID
	// Budget, when set, bounds the bytes that answers may bring: once
	// they pass it, Heal and the rest stop with errOverBudget.
	Budget int64
	// Alive, when set, is told as each request begins and each time an
	// answer brings bytes (a watchdog of a still upstream).
	Alive func()

	received int64                     // the bytes the answers brought
	packs    []string                  // the packs a mend wrote
	linked   map[object.ID]object.Type // what the objects fetched name, by type
}

// Written returns the paths of the packs a mend wrote.
func (f *Fetcher) Written() []string { return f.packs }

// Heal fetches ids from up, in requests of at most Chunk ids, and returns
// those that do not read back right afterwards (for a mend: that no pack
// it wrote holds), each said on Messages, with an error where no request
// could be made or answered. Each one that came is said too, as git's
// warning that it was fetched again.
func (f *Fetcher) Heal(up *upstream.Upload, ids []object.ID) (left []object.ID, err error) {
	chunk := f.Chunk
	if chunk <= 0 {
		chunk = len(ids)
	}
	for part := range slices.Chunk(ids, max(chunk, 1)) {
		if err := f.fetchAgain(up, part); err != nil {
			return ids, err
		}
	}
	var bad map[object.ID]bool
	if f.Packs {
		bad, err = f.notFetched(ids)
	} else {
		bad, err = Unreadable(f.Store.Store, ids, false)
	}
	if err != nil {
		return ids, err
	}
	for _, id := range ids {
		if !bad[id] {
			fmt.Fprintf(f.Messages, "warning: object %s of the repository was broken; fetched it again from '%s'\n", id, f.URL)
		} else {
			left = append(left, id)
			fmt.Fprintf(f.Messages, "warning: object %s of the repository is broken, and '%s' did not send it again\n", id, f.URL)
		}
	}
	return left, nil
}

// fetchAgain asks up, on a fresh session where it needs one, for ids alone
// (no haves: they would tell it that they are here), and writes what of
// the answer was asked for.
func (f *Fetcher) fetchAgain(up *upstream.Upload, ids []object.ID) error {
	f.alive()
	fresh, err := up.Fresh()
	if err != nil {
		return err
	}
	if fresh != up {
		defer fresh.Close()
	}
	req := &upstream.FetchRequest{Wants: ids, NoProgress: true, Only: true}
	if len(f.Haves) > 0 {
		req.Haves = &haveList{ids: f.Haves}
	}
	p, err := fresh.Fetch(req)
	if err != nil {
		return err
	}
	stats, err := f.writeAsked(p, ids)
	if err != nil {
		return err
	}
	err = p.Drain()
	if f.Account != nil {
		f.Account(stats, err)
	}
	if f.received += stats.Bytes; err == nil && f.Budget > 0 && f.received > f.Budget {
		err = errOverBudget
	}
	return err
}

// Unreadable returns which of ids the store cannot read back right:
// broken, or, without brokenOnly, also absent. Any other failure to read
// (an I/O error) is returned.
func Unreadable(store *loose.Store, ids []object.ID, brokenOnly bool) (map[object.ID]bool, error) {
	bad := map[object.ID]bool{}
	for _, id := range ids {
		if _, _, err := store.Read(id); err != nil {
			if !errors.Is(err, loose.ErrCorrupt) && !errors.Is(err, loose.ErrNotFound) {
				return nil, err
			}
			bad[id] = !brokenOnly || errors.Is(err, loose.ErrCorrupt)
		}
	}
	return bad, nil
}

// haveList is a negotiator of the haves it holds, sent as they come.
type haveList struct{ ids []object.ID }

// Next returns up to n more haves.
func (h *haveList) Next(n int) []object.ID {
	n = min(n, len(h.ids))
	out := h.ids[:n]
	h.ids = h.ids[n:]
	return out
}

// Ack is told of a have the upstream has: nothing follows from it here.
func (h *haveList) Ack(object.ID) {}

// alive tells f.Alive, where set.
func (f *Fetcher) alive() {
	if f.Alive != nil {
		f.Alive()
	}
}

// reader is the answer p as the unpack reads it: each read that brings
// bytes told to f.Alive, where set.
func (f *Fetcher) reader(p io.Reader) io.Reader {
	if f.Alive == nil {
		return p
	}
	return liveReader{r: p, alive: f.Alive}
}
