package remote

import (
	"context"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/object"
)

// negotiator is a fetch's negotiator (upstream.Negotiator): the
// repository's commits newest first, as git rev-list walks them from
// every ref (by commit date, git's own order), read as the rounds ask for
// them and given as git's negotiators give them:
//
//   - a commit the upstream has acknowledged, or that one it has reaches,
//     is not sent (common);
//   - a tip the upstream advertised with a value this repository holds is
//     sent, and what it reaches is not (git's known common refs);
//   - the skipping negotiator sends the first commit of each line of
//     history and then skips ever more (1, 2, 4, 7, 11, … commits);
//   - once every commit the walk still has to reach is common, there are
//     no more haves: the walk is stopped, not read to the root.
//
// Only what refs reach is sent: objects a killed fetch left behind are
// never claimed, because their closure is not known to be complete. When
// git cannot walk the refs (a broken object after a crash), the tips
// alone are sent where git can read them (git rev-list --no-walk --all),
// else nothing: the upstream sends everything, and the unpacker repairs
// what is broken.
type negotiator struct {
	walk       *revWalk
	advertised map[object.ID]bool // the upstream's tips
	except     map[object.ID]bool // never sent (the wants of a deepening)
	skipping   bool
	pending    map[object.ID]mark        // tips and parents met, not yet read
	live       int                       // pending commits not common
	parents    map[object.ID][]object.ID // of each commit sent
	given      int                       // commits read from the walk
	tips       []object.ID               // the fallback's, once the walk failed
	ended      bool
	warn       func(error)
}

// mark is what a commit's children said of it before the walk reached it.
type mark struct {
	common bool
	// ttl is how many more commits of this line the skipping negotiator
	// leaves out; orig how many it left out after the last one it sent.
	ttl, orig int
}

// newNegotiator starts the walk of a fetch's negotiation; algorithm is
// "consecutive" or "skipping". warn is told when the refs cannot be
// walked at all.
func newNegotiator(ctx context.Context, algorithm string, advertised, except map[object.ID]bool, warn func(error)) *negotiator {
	n := &negotiator{advertised: advertised, except: except, skipping: algorithm == "skipping",
		pending: map[object.ID]mark{}, parents: map[object.ID][]object.ID{}, warn: warn}
	n.walk = startWalk(ctx)
	return n
}

// Close stops the walk.
func (n *negotiator) Close() { n.walk.close() }

// Next returns up to max more haves.
func (n *negotiator) Next(max int) []object.ID {
	var out []object.ID
	if n.given == 0 && !n.ended {
		tips, err := n.walk.tipsRead()
		if err != nil {
			n.fail(err)
		}
		for _, id := range tips {
			n.mark(id, mark{})
		}
	}
	for len(out) < max && !n.ended {
		if n.given > 0 && n.live == 0 {
			n.ended = true // what is left to walk is common
			n.walk.close()
			break
		}
		id, parents, err := n.walk.next()
		if err != nil {
			n.fail(err)
			break
		}
		n.given++
		if n.take(id, parents) {
			out = append(out, id)
		}
	}
	for len(out) < max && len(n.tips) > 0 {
		out = append(out, n.tips[0])
		n.tips = n.tips[1:]
	}
	return out
}

// mark records what is known of a commit not yet read, keeping count of
// those not common.
func (n *negotiator) mark(id object.ID, m mark) {
	if old, ok := n.pending[id]; ok && !old.common {
		n.live--
	}
	if !m.common {
		n.live++
	}
	n.pending[id] = m
}

// take decides whether the commit id the walk read is sent, and marks its
// parents accordingly: skipping.c's ttl (a sent commit's parents skip
// orig*3/2+1 commits, a skipped one's one fewer than it did, the longer
// skip winning where lines meet; a root is sent all the same), or
// default.c's known common tip.
func (n *negotiator) take(id object.ID, parents []object.ID) bool {
	m, ok := n.pending[id]
	if ok {
		delete(n.pending, id)
		if !m.common {
			n.live--
		}
	}
	send := !m.common && !n.except[id] && (!n.skipping || m.ttl == 0 || len(parents) == 0)
	known := send && !n.skipping && n.advertised[id]
	for _, p := range parents {
		pm, seen := n.pending[p]
		switch {
		case m.common || known:
			pm.common = true
		case n.skipping:
			orig, ttl := m.orig, m.ttl-1
			if m.ttl == 0 {
				orig = m.orig*3/2 + 1
				ttl = orig
			}
			if seen && pm.orig >= orig {
				continue
			}
			pm.orig, pm.ttl = orig, ttl
		case seen:
			continue
		}
		n.mark(p, pm)
	}
	if send {
		n.parents[id] = parents
	}
	return send
}

// Ack marks the parents of a commit the upstream has as common: the walk
// does not send them, nor what they reach.
func (n *negotiator) Ack(id object.ID) {
	for _, p := range n.parents[id] {
		m := n.pending[p]
		m.common = true
		n.mark(p, m)
	}
}

// fail ends the walk that stopped with err (io.EOF at its end); a walk
// that failed before any commit falls back on the tips.
func (n *negotiator) fail(err error) {
	n.ended = true
	if err = n.walk.wait(err); err == nil || n.given > 0 {
		return
	}
	tips, terr := repo.Git(n.walk.ctx, nil, "rev-list", "--no-walk", "--all")
	if terr != nil {
		n.warn(terr)
		return
	}
	for _, id := range hashes(tips) {
		if !n.except[id] {
			n.tips = append(n.tips, id)
		}
	}
}
