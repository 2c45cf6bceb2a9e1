package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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
	tips := wants // what the refs git asked for point at
	r, err := h.repository()
	if err != nil {
		return err
	}
	var haves []object.ID
	if !h.set.refetch && !noopNegotiation(r.Config) {
		haves = h.localHaves()
	}
	if h.set.refetch || h.set.deepen() {
		// Refetching and deepening ask again for tips the repository has.
		haves = without(haves, wants)
	} else {
		wants = without(wants, haves)
	}
	reply := ""
	if len(wants) > 0 {
		rcv, err := h.fetchPack(r.GitDir, wants, haves, tips)
		if err != nil {
			return err
		}
		if rcv.lock != "" {
			reply += "lock " + rcv.lock + "\n"
		}
		if rcv.connected && h.set.checkConn {
			reply += "connectivity-ok\n"
		}
	}
	return h.write(reply + "\n")
}

// fetchPack asks the upstream for wants and receives the pack; tips are
// what every ref git asked for points at.
func (h *helper) fetchPack(gitDir string, wants, haves, tips []object.ID) (received, error) {
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
	synced, connected, err := h.afterPack(up, pack, gitDir, shallow, tips, rcv.connected)
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
// clone into a new repository (newPartial). It returns whether
// the objects are known to be connected (by the unpacker's closure, or by
// that check): a clone that asked for check-connectivity is then told
// connectivity-ok and skips its own check; git's transport-helper takes
// that answer from no other fetch, and runs its check after every one.
func (h *helper) afterPack(up *upstream.Upload, pack *upstream.Pack, gitDir string, shallow, tips []object.ID, connected bool) (batch.Stats, bool, error) {
	if err := pack.Drain(); err != nil {
		return batch.Stats{}, false, err
	}
	if !connected && !pack.Deepened && !h.newPartial() {
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

// without returns ids minus those in drop. git asks only for refs it does
// not have, but a ref may point at a tip another local ref has.
func without(ids, drop []object.ID) []object.ID {
	skip := make(map[object.ID]bool, len(drop))
	for _, h := range drop {
		skip[h] = true
	}
	var out []object.ID
	for _, id := range ids {
		if !skip[id] {
			out = append(out, id)
		}
	}
	return out
}

// maxRecent bounds the ancestors of the ref tips sent as haves.
const maxRecent = 256

// localHaves returns what a fetch tells the upstream the repository has:
// what its refs point at and the most recent commits reachable from them.
// The helper negotiates in a single round, so they are all sent at once.
// Only what refs reach is trusted: objects a killed fetch left behind are
// never advertised, because their closure is not known to be complete.
// When git cannot walk the refs (a broken object after a crash), nothing
// is claimed: the upstream sends everything, and the unpacker repairs what
// is broken.
func (h *helper) localHaves() []object.ID {
	// The walk of the recent commits reads every ref's object (a tag down
	// to what it tags, each tip commit): where it succeeds, the refs'
	// values as git for-each-ref lists them, which reads no object, are
	// sound. rev-list's own order (newest commit date first) stops after
	// maxRecent commits; --date-order would walk the whole history first.
	// Both run at once: each is a git process's start.
	type walk struct {
		out []byte
		err error
	}
	refc := make(chan walk, 1)
	go func() {
		out, err := repo.Git(h.ctx, nil, "for-each-ref", "--format=%(objectname)")
		refc <- walk{out, err}
	}()
	recent, err := repo.Git(h.ctx, nil, "rev-list", "--max-count="+strconv.Itoa(maxRecent), "--all")
	refs := <-refc
	var haves []object.ID
	switch {
	case err == nil && refs.err == nil:
		haves = append(hashes(refs.out), hashes(recent)...)
	case err == nil:
		haves = hashes(recent)
	default:
		// Some commit below a tip may be broken: the tips alone, where
		// they are sound.
		tips, terr := repo.Git(h.ctx, nil, "rev-list", "--no-walk", "--all")
		if terr != nil {
			fmt.Fprintf(h.errw, "warning: cannot walk the local refs (%s); fetching everything\n", describe(terr, h.url))
			return nil
		}
		haves = hashes(tips)
	}
	seen := make(map[object.ID]bool, len(haves))
	out := haves[:0]
	for _, id := range haves {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
