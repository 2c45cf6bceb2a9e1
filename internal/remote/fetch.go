package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/object"
)

// fetch answers a batch of "fetch <oid> <ref>" lines: it negotiates with the
// upstream, receives the pack into the repository through the durable
// unpacker, records the shallow boundary, and only then answers git.
func (h *helper) fetch(cmds []string) error {
	var wants []object.ID
	seen := map[object.ID]bool{}
	h.sought = h.sought[:0]
	for _, c := range cmds {
		f := strings.Fields(c)
		var id object.ID
		var err error
		if len(f) >= 2 {
			id, err = object.ParseID(f[1])
		}
		if len(f) < 2 || err != nil {
			return fmt.Errorf("bad fetch command from git: '%s'", c)
		}
		h.sought = append(h.sought, strings.Join(f[1:min(len(f), 3)], " "))
		if !seen[id] {
			seen[id] = true
			wants = append(wants, id)
		}
	}
	h.line.Batches++
	r, err := h.repository()
	if err != nil {
		return err
	}
	n, err := h.negotiator(r, wants)
	if err != nil {
		return err
	}
	var haves upstream.Negotiator // none when refetching, as git's noop
	if n != nil {
		defer n.Close()
		haves = n
	}
	rcv, err := h.fetchPack(r.GitDir, wants, haves)
	if err != nil {
		return err
	}
	reply := ""
	if rcv.lock != "" {
		reply += "lock " + rcv.lock + "\n"
	}
	if rcv.connected && h.set.checkConn {
		reply += "connectivity-ok\n"
	}
	return h.write(reply + "\n")
}

// negotiator is the negotiator of a fetch of wants into r, as git's
// configuration names it; nil where no have is sent (noop, and a refetch,
// as git's). Deepening asks again for tips the repository has: they are
// not sent.
func (h *helper) negotiator(r *repo.Repo, wants []object.ID) (*negotiator, error) {
	algorithm, err := negotiation(r.Config)
	if err != nil || h.set.refetch || algorithm == "noop" {
		return nil, err
	}
	var except map[object.ID]bool
	if h.set.deepen() {
		except = make(map[object.ID]bool, len(wants))
		for _, id := range wants {
			except[id] = true
		}
	}
	t, err := h.objects(r)
	if err != nil {
		return nil, err
	}
	present := func(id object.ID) bool { ok, err := t.Store.Present(id); return ok && err == nil }
	date := func(id object.ID) (int64, bool) { return tipDate(t.Store, id) }
	return newNegotiator(h.ctx, r, algorithm, h.advertised, except, func(err error) {
		fmt.Fprintf(h.errw, "warning: cannot walk the local refs (%s); fetching everything\n", describe(err, h.url))
	}, present, date), nil
}

// fetchPack asks the upstream for wants, what every ref git asked for
// points at, and receives the pack.
func (h *helper) fetchPack(gitDir string, wants []object.ID, haves upstream.Negotiator) (received, error) {
	up := h.up
	h.up = nil // a v0 session serves one request
	if up == nil {
		var err error
		if up, err = h.remote.OpenUpload(nil); err != nil {
			return received{}, err
		}
		if up == nil {
			return received{}, fmt.Errorf("'%s' is empty now; nothing to fetch", h.url)
		}
	}
	defer up.Close()
	local, err := h.repository()
	if err != nil {
		return received{}, err
	}
	if err := up.CheckFormat(local.Format); err != nil {
		return received{}, err
	}
	shallow, err := readShallow(gitDir)
	if err != nil {
		return received{}, err
	}
	rl := h.relay()
	defer rl.flush()
	pack, err := up.Fetch(&upstream.FetchRequest{
		Wants: wants, Haves: haves, Shallows: shallow,
		Depth: h.set.depth, DeepenRelative: h.set.deepenRel, DeepenSince: h.set.deepenSince, DeepenNot: h.set.deepenNot,
		IncludeTag: h.set.followTags, NoProgress: !h.set.progress || h.set.verbosity == 0,
		Filter: h.set.filter, Progress: rl,
	})
	if err != nil {
		return received{}, err
	}
	if err := checkUnshallow(shallow, pack.Unshallow); err != nil {
		return received{}, err
	}
	rcv, err := h.unpack(pack, wants, h.healer(up, pack))
	if err != nil {
		return received{}, err
	}
	synced, connected, err := h.afterPack(up, pack, gitDir, shallow, wants, rcv.connected)
	rcv.connected = connected
	rcv.stats.Stats = plus(rcv.stats.Stats, synced)
	h.account(rcv.stats, err)
	if err != nil {
		// git is not told of the .keep: remove it, as git fetch does
		// when it fails, so that the pack is not pinned for ever.
		if rcv.lock != "" {
			os.Remove(rcv.lock)
		}
		return received{}, err
	}
	return rcv, nil
}

// afterPack finishes a fetch whose pack is in: what follows the pack must
// end cleanly, and the shallow boundary is recorded, synced as the
// objects are (what the syncs of that cost). Unless the pack is known to
// be connected, git's connectivity check runs first, while the session
// can still heal what the check reads broken (healCheck); not for a
// deepening, whose check would need the new boundary, nor for a partial
// clone into a new repository (newPartial), nor for a fetch after the
// sweep found no loose object broken (swept): git checks after every
// fetch, and no crash since broke what it reads. It returns whether
// the objects are known to be connected (by the unpacker's closure, or by
// that check): a clone that asked for check-connectivity is then told
// connectivity-ok and skips its own check; git's transport-helper takes
// that answer from no other fetch, and runs its check after every one.
func (h *helper) afterPack(up *upstream.Upload, pack *upstream.Pack, gitDir string, shallow, tips []object.ID, connected bool) (batch.Stats, bool, error) {
	if err := pack.Drain(); err != nil {
		return batch.Stats{}, false, err
	}
	if !connected && !pack.Deepened && !h.newPartial() && (h.set.cloning || !h.swept) {
		connected = h.healCheck(up, tips)
	}
	if err := pack.Finish(); err != nil {
		return batch.Stats{}, false, err
	}
	st, err := h.updateShallow(gitDir, shallow, pack, tips)
	return st, connected, err
}

// newPartial reports a partial clone with no alternates: what the check
// would read came with this clone (or a bundle git unbundled for it just
// before), not from before a crash, so there is nothing to heal. git asks
// a filtered clone for no connectivity-ok and runs its own check, which
// after a partial clone only looks for the tips in a promisor pack
// (connected.c), where healCheck would walk every commit and tree
// received.
func (h *helper) newPartial() bool {
	if !h.set.cloning || !h.set.promisor() || h.env.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES") != "" {
		return false
	}
	r, err := h.repository()
	if err != nil {
		return false
	}
	_, err = os.Lstat(filepath.Join(r.ObjectDir, "info", "alternates"))
	return errors.Is(err, fs.ErrNotExist)
}
