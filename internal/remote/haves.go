package remote

import (
	"cmp"
	"context"
	"slices"
	"sort"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/object"
)

// negotiator is a fetch's negotiator (upstream.Negotiator). Its haves
// come in this order:
//
//   - the tips, newest commit first, as git's negotiators take them from
//     their queue by commit date: those of the repository's own refs,
//     whose values the upstream did not advertise (the old values of the
//     refs a mirror updates, local branches), and those the upstream
//     advertised with a value this repository holds, peeled as the
//     advertisement peels them, without their ancestors (git's known
//     common refs): the refs of a mirror cost no walk at all. Sent oldest
//     first (the refs' names' order: a 1.x tag before the release
//     branches), the tips let the upstream find an old release common and
//     answer with everything since;
//   - where more are asked for, the commits below the first tips, newest
//     first as git rev-list walks them (by commit date), down to what the
//     advertised tips reach (revWalk): but for what an acknowledged commit
//     reaches (common); the skipping negotiator sends the first commit of
//     each line and then skips ever more (1, 2, 4, 7, 11, … commits); once
//     every commit the walk still has to reach is common, it stops.
//
// A ref whose object the repository cannot read (a loose object a crash
// emptied or lost, a pack cut short) is left out, as git's fetch-pack
// leaves it out (deref_without_lazy_fetch): sent as a have, it would
// tell the upstream not to send the very object that is missing.
//
// The refs are read once, from the files backend where they are kept
// there (repo.RefValues), and the walk starts only where the tips were not
// enough: a fetch whose first round ends the negotiation starts no
// process for it. Only what refs reach is sent: objects a killed fetch
// left behind are never claimed, because their closure is not known to be
// complete. When git cannot walk the refs (a broken object after a crash),
// the tips alone are sent where git can read them (git rev-list --no-walk
// --all), else nothing: the upstream sends everything, and the unpacker
// repairs what is broken.
type negotiator struct {
	ctx        context.Context
	repo       *repo.Repo
	advertised map[object.ID]advertisedTip // the upstream's tips
	except     map[object.ID]bool          // never sent (the wants of a deepening)
	skipping   bool
	started    bool
	tips       []object.ID // the tips not yet sent: own and advertised, newest first
	sent       map[object.ID]bool
	acked      map[object.ID]bool // acknowledged before the walk began
	own, known []object.ID        // the values of the refs, not advertised and advertised
	walk       *revWalk
	pending    map[object.ID]mark        // tips and parents met, not yet read
	live       int                       // pending commits not common
	parents    map[object.ID][]object.ID // of each commit of the walk sent
	given      int                       // commits read from the walk
	ended      bool                      // the walk is over, or never to be
	warn       func(error)
	// present reports whether the repository can read an object (a ref's
	// tip): only such tips are sent; date gives a tip's commit date.
	present func(object.ID) bool
	date    func(object.ID) (int64, bool)
}

// advertisedTip is what a ref the upstream advertised points at: peeled
// (a tag's "^{}" line; else itself), and where in the advertisement it came
// first.
type advertisedTip struct {
	peeled object.ID
	order  int
}

// mark is what a commit's children said of it before the walk reached it.
type mark struct {
	common bool
	// ttl is how many more commits of this line the skipping negotiator
	// leaves out; orig how many it left out after the last one it sent.
	ttl, orig int
}

// newNegotiator returns the negotiator of a fetch into r; algorithm is
// "consecutive" or "skipping". warn is told when the refs cannot be
// walked at all; present says which tips the repository can read.
func newNegotiator(ctx context.Context, r *repo.Repo, algorithm string, advertised map[object.ID]advertisedTip, except map[object.ID]bool,
	warn func(error), present func(object.ID) bool, date func(object.ID) (int64, bool)) *negotiator {
	return &negotiator{ctx: ctx, repo: r, advertised: advertised, except: except, skipping: algorithm == "skipping",
		pending: map[object.ID]mark{}, parents: map[object.ID][]object.ID{}, sent: map[object.ID]bool{}, acked: map[object.ID]bool{},
		warn: warn, present: present, date: date}
}

// Close stops the walk.
func (n *negotiator) Close() {
	if n.walk != nil {
		n.walk.close()
	}
}

// start reads the refs and lines up the tips.
func (n *negotiator) start() {
	n.started = true
	values, _, err := n.repo.RefValues(n.ctx)
	if err != nil {
		n.ended = true
		n.fallback()
		return
	}
	seen := make(map[object.ID]bool, len(values))
	var known []advertisedTip
	for _, v := range values {
		if seen[v] {
			continue
		}
		seen[v] = true
		if !n.present(v) {
			continue
		}
		if a, ok := n.advertised[v]; ok {
			n.known = append(n.known, v)
			known = append(known, a)
		} else if n.own = append(n.own, v); !n.except[v] {
			n.tips = append(n.tips, v)
		}
	}
	sort.Slice(known, func(i, j int) bool { return known[i].order < known[j].order })
	for _, a := range known {
		if !n.except[a.peeled] {
			n.tips = append(n.tips, a.peeled)
		}
	}
	n.byDate()
	n.ended = len(n.own) == 0
}

// byDate orders the tips newest commit first, as git's negotiators take
// them (the own tips before the advertised ones of the same date, each in
// its order); a tip whose date cannot be read goes last.
func (n *negotiator) byDate() {
	if n.date == nil {
		return
	}
	dates := make(map[object.ID]int64, len(n.tips))
	for _, id := range n.tips {
		if d, ok := n.date(id); ok {
			dates[id] = d
		} else {
			dates[id] = -1 << 62
		}
	}
	slices.SortStableFunc(n.tips, func(a, b object.ID) int { return cmp.Compare(dates[b], dates[a]) })
}

// Next returns up to max more haves: the tips, newest first; then the
// walk's. A round that reaches the walk before it starts ends there:
// where the tips end the negotiation, as the old values of a mirror's refs
// mostly do, no walk starts.
func (n *negotiator) Next(max int) []object.ID {
	if !n.started {
		n.start()
	}
	var out []object.ID
	for len(out) < max {
		var id *object.ID
		switch {
		case len(n.tips) > 0:
			id, n.tips = &n.tips[0], n.tips[1:]
		case n.ended, n.walk == nil && len(out) > 0:
			return out
		case n.walk == nil && !n.startWalk():
			continue // the fallback's tips, if any
		default:
			if id = n.read(); id == nil {
				continue
			}
		}
		if !n.sent[*id] {
			n.sent[*id] = true
			out = append(out, *id)
		}
	}
	return out
}

// startWalk starts the walk below the repository's own tips, which were
// sent: the walk marks them so, and sends their parents.
func (n *negotiator) startWalk() bool {
	w, err := startWalk(n.ctx, n.own, n.known)
	if err != nil {
		n.ended = true
		n.fallback()
		return false
	}
	n.walk = w
	for _, id := range n.own {
		n.mark(id, mark{common: n.acked[id]})
	}
	return true
}

// fallback sends the tips alone where git could not list or walk the refs,
// as git rev-list --no-walk --all reads them (Next leaves out those sent);
// where it cannot either, nothing, with a warning.
func (n *negotiator) fallback() {
	out, err := repo.Git(n.ctx, nil, "rev-list", "--no-walk", "--all")
	if err != nil {
		n.warn(err)
		return
	}
	for _, id := range hashes(out) {
		if !n.except[id] && n.present(id) {
			n.tips = append(n.tips, id)
		}
	}
}
