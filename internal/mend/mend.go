package mend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/quarantine"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/verify"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// Options configure a Mend.
type Options struct {
	// URL is the upstream's address, where the broken objects are fetched
	// again from ("" where the repository has no remote).
	URL string
	// Getenv is the process's environment (nil: os.Getenv), read as the
	// helper reads its own to reach the upstream (git's -c values, its
	// protocol policy, proxies).
	Getenv func(string) string
	// Quarantine takes what the mend retires; nil: the repository's
	// (quarantine.For).
	Quarantine *quarantine.Dir
	// Stats, when set, is the absolute path of a statistics file
	// (report.StatsEnv) that gets a line per answer fetched.
	Stats string
	// Idle, when set, ends the fetches once the upstream sent nothing for
	// so long (a watchdog), well before the caller's own time limit: an
	// upstream that accepts and never answers does not hold the mend.
	Idle time.Duration
}

// Mended is what a mend did.
type Mended struct {
	Fetched int // objects fetched again by id
	Asked   int // broken copies asked for again
	// Whole says that everything the upstream's refs reach was fetched
	// again instead of the broken copies by id (they held more than a
	// reclone would bring), and why.
	Whole string
	Did   []string // a phrase per pack put right or ref set aside
	// Left are the objects still broken, and NotSent those broken
	// copies the upstream did not send (of the Fetched+NotSent asked
	// for); Missing the refs whose object is still not there.
	Left, NotSent []object.ID
	Missing       []RefObject
	// Retired are the files set aside, relative to the git directory,
	// and Quarantine where (its run's folder).
	Retired    []string
	Quarantine string
}

// mender is one mend of one repository.
type mender struct {
	ctx     context.Context
	git     Git
	r       *repo.Repo
	t       *objstore.Session
	q       *quarantine.Dir
	fetched fetchedPacks
	// whole is the pack of a fetch of everything, where the mend made
	// one; rewritten the packs written again with every entry in place,
	// mended every pack written again, and checked the objects written
	// whole into each (by its path: each hashed as it was written).
	whole     string
	rewritten []string
	mended    []string
	checked   map[string]map[object.ID]bool
	// layouts are the damaged packs laid out by their indexes (layout).
	layouts map[string][]pack.Span
	// onWhole, when set, is told that the fetch turns to everything.
	onWhole func()
	// unreached are the broken objects nothing reaches, left out.
	unreached map[object.ID]bool
}

// Mend puts right what the verification f found in the repository git
// runs in, which the caller holds: each object whose own copy is broken (a
// packed entry whose bytes are bad or cut off, a loose file) and each
// object a ref names that is missing is fetched again by id from the
// upstream, into packs of their own written durably (Fetcher, Packs); each
// pack that held a broken copy is then written again with good copies in
// their place, durably, before the damaged one is set aside (mendPack); a
// pack without a usable index gets one again beside it (reindex), and one
// with a broken entry the upstream did not send is left as it is; a broken
// loose copy is set aside once a fetched pack holds the object. A ref is
// never deleted: one whose object the upstream does not have either is
// set aside (it names nothing git can read), for the update to fetch the
// upstream's value. What is left broken is in the result, and the error
// says why the mend stopped.
func Mend(ctx context.Context, git Git, f *Findings, o Options) (out Mended, err error) {
	r := f.repo // as the verification read it, a moment ago, under the same lock
	if r == nil {
		if r, err = openRepo(ctx, git); err != nil {
			return out, err
		}
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	t, err := objstore.Open(r, o.Getenv, io.Discard, true)
	if err != nil {
		return out, err
	}
	defer t.Close()
	m := &mender{ctx: ctx, git: git, r: r, t: t, q: o.Quarantine, checked: map[string]map[object.ID]bool{},
		layouts: f.laidOut()}
	if m.q == nil {
		m.q = quarantine.For(r.CommonDir)
	}
	defer func() {
		out.Retired, out.Quarantine = m.q.Retired(), m.q.Path()
	}()
	// What the findings hold while the mend runs (each damage's id and
	// words, the sets made of them): without it the collector runs
	// without pause under the soft limit while a fetch of everything is
	// unpacked (560 collections instead of 100, 6.1 s instead of 4.0 s for
	// git.git to v2.0.0 with 92,000 copies cut off).
	held := int64(len(f.Damage))*320 + int64(len(f.Missing))*128
	cli.ReserveMemory(held)
	defer cli.ReserveMemory(-held)
	own, packs, byPack := brokenCopies(f.Report)
	wanted := append([]object.ID(nil), own...)
	refIDs := map[object.ID]bool{}
	for _, ref := range f.Missing {
		wanted = append(wanted, ref.ID)
		refIDs[ref.ID] = true
	}
	closeFetched := func() {}
	var written []string // the packs the fetch wrote
	var ahead *aheads    // the packs written again beside the fetch
	defer func() {
		ahead.end(m) // before the fetched packs close: they read them
		closeFetched()
	}()
	if len(wanted) > 0 {
		s := m.measure(byPack)
		if s.wholeWanted() {
			out.Whole = fmt.Sprintf("the broken copies held %d of the packs' %d bytes", s.broken, s.packs)
		}
		wanted = dedupe(wanted)
		s.laterFirst(wanted)
		s.at = nil
		if !s.wholeWanted() && len(refIDs) == 0 {
			ahead = m.rewriteAhead(packs, byPack)
			m.onWhole = func() { ahead.end(m) }
		}
		fetched, left, err := m.fetch(o, wanted, refIDs, s.wholeWanted(), s.packs)
		written = fetched
		if m.whole != "" && out.Whole == "" {
			out.Whole = "what came by id passed half of what the packs hold"
		}
		m.fetched, closeFetched = openFetched(fetched, r.Format)
		m.fetched.share(pack.NewBaseCache(rereadCache))
		ahead.begin()
		out.Fetched, out.Asked = len(wanted)-len(left), len(own)
		for _, id := range left {
			if slices.Contains(own, id) {
				out.NotSent = append(out.NotSent, id) // a ref's is set aside below
			}
		}
		if err != nil {
			return out, err
		}
	}
	// A broken object that no good copy came for and nothing reaches (its
	// branch deleted upstream) is left out of its pack and set aside with
	// it: git fsck's dangling object, broken.
	// (A walk of the whole history: only where the upstream lacked some.)
	var cannot []object.ID
	for _, id := range f.Report.Broken() {
		if len(out.NotSent) > 0 && !m.fetched.has(id) {
			cannot = append(cannot, id)
		}
	}
	m.unreached = m.unreachable(cannot)
	if len(m.unreached) > 0 {
		kinds := map[object.ID]string{}
		for _, d := range f.Damage {
			if m.unreached[d.ID] {
				kinds[d.ID] = m.kindOf(d)
				if d.Pack != "" {
					if byPack[d.Pack] == nil {
						byPack[d.Pack] = map[object.ID]bool{}
					}
					byPack[d.Pack][d.ID] = true
				}
			}
		}
		out.Did = append(out.Did, sayUnreachable(kinds))
		out.NotSent = slices.DeleteFunc(out.NotSent, func(id object.ID) bool { return m.unreached[id] })
	}
	lacking := map[object.ID]bool{}
	for _, id := range out.NotSent {
		lacking[id] = true
	}
	for path, why := range packs {
		if anyOf(byPack[path], func(id object.ID) bool { return lacking[id] }) {
			continue // no good copy of one of its broken entries: left as it is
		}
		if slices.Contains(written, path) {
			// The fetch brought this very pack again and published it
			// over the damaged one (the damaged file kept aside).
			out.Did = append(out.Did, fmt.Sprintf("%s came again whole (%s)", filepath.Base(path), why))
			continue
		}
		if w := ahead.take(m, path, byPack[path]); w != nil {
			what, err := m.publish(w)
			if err != nil {
				return out, fmt.Errorf("%s: %v", filepath.Base(path), err)
			}
			out.Did = append(out.Did, what)
			continue
		}
		what, err := m.mendPack(path, why, byPack[path])
		if err != nil {
			return out, fmt.Errorf("%s: %v", filepath.Base(path), err)
		}
		out.Did = append(out.Did, what)
	}
	if err := m.dropWhole(); err != nil {
		return out, err
	}
	if err := m.retireLoose(f.Report); err != nil {
		return out, err
	}
	if out.Missing, err = MissingRefObjects(ctx, git); err != nil {
		return out, err
	}
	if len(out.Missing) > 0 {
		did, err := m.setAsideRefs(out.Missing, func() ([]RefObject, error) { return MissingRefObjects(ctx, git) })
		out.Did = append(out.Did, did...)
		if err != nil {
			return out, err
		}
		if out.Missing, err = MissingRefObjects(ctx, git); err != nil {
			return out, err
		}
	}
	left, there := stillBroken(r, f, m.fetched, m.mended, m.checked)
	out.Left = slices.DeleteFunc(left, func(id object.ID) bool { return m.unreached[id] })
	ahead.end(m) // before the fetched packs close: they read them
	ahead = nil
	closeFetched()
	closeFetched = func() {}
	out.Did = append(out.Did, m.retireFetched(there)...)
	return out, m.q.Flush()
}

// retireFetched sets aside each pack the fetch wrote by id (m.fetched,
// its files closed) whose every object a pack written again holds, and
// read right there (there): the good copies' entries were put in place of
// the broken ones, and git would read them twice. That is not needed for
// the mend: one that cannot be set aside is said, and left.
func (m *mender) retireFetched(there map[object.ID]bool) (said []string) {
	for _, p := range m.fetched {
		if p.path == m.whole || slices.Contains(m.mended, p.path) {
			continue
		}
		all := true
		for i := range p.idx.Count() {
			all = all && there[p.idx.ID(i)]
		}
		if !all {
			continue
		}
		if err := m.retirePack(p.path); err != nil {
			said = append(said, fmt.Sprintf("kept %s, which git reads twice (%v)", filepath.Base(p.path), err))
		}
	}
	return said
}

// anyOf reports whether f holds for one of the ids of set.
func anyOf(set map[object.ID]bool, f func(object.ID) bool) bool {
	for id := range set {
		if f(id) {
			return true
		}
	}
	return false
}

// brokenCopies sorts what a verification found: the objects whose own
// copy is broken, to fetch again; the packs to mend, with why; and the
// broken copies of each.
func brokenCopies(rep *verify.Report) ([]object.ID, map[string]string, map[string]map[object.ID]bool) {
	seen := map[object.ID]bool{}
	var own []object.ID
	packs := map[string]string{}
	byPack := map[string]map[object.ID]bool{}
	for _, d := range rep.Damage {
		if d.Own && !seen[d.ID] {
			seen[d.ID] = true
			own = append(own, d.ID)
		}
		if d.Pack == "" || !d.Own && !d.ID.IsZero() {
			continue
		}
		if packs[d.Pack] == "" {
			packs[d.Pack] = d.Why
		}
		if d.Own {
			if byPack[d.Pack] == nil {
				byPack[d.Pack] = map[object.ID]bool{}
			}
			byPack[d.Pack][d.ID] = true
		}
	}
	return own, packs, byPack
}

// retireLoose sets aside each broken loose copy the verification found of
// an object a fetched pack now holds: git reads packs first and never
// notices the file, but git fsck fails on it.
func (m *mender) retireLoose(rep *verify.Report) error {
	for _, d := range rep.Damage {
		if d.Pack == "" && !d.ID.IsZero() && (m.fetched.has(d.ID) || m.unreached[d.ID]) {
			dir, rest := d.ID.Shard()
			if err := m.q.Retire(filepath.Join(m.r.ObjectDir, dir, rest)); err != nil {
				return err
			}
		}
	}
	return nil
}

// dedupe returns ids without repeats, in order.
func dedupe(ids []object.ID) []object.ID {
	seen := make(map[object.ID]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Refs mends what an update fails on when a ref names an object the
// repository does not have ("bad object", "did not send all necessary
// objects"): the refs whose object is missing, each object fetched again
// by id, and each ref whose object the upstream does not have either set
// aside (Mend). It reports whether any ref was found so.
func Refs(ctx context.Context, git Git, o Options) (Mended, bool, error) {
	missing, err := MissingRefObjects(ctx, git)
	if err != nil || len(missing) == 0 {
		return Mended{}, false, err
	}
	m, err := Mend(ctx, git, &Findings{Report: &verify.Report{}, Missing: missing}, o)
	return m, true, err
}

// dropWhole removes the pack of a fetch of everything where the packs
// written again with every entry in place (a bitmap's) now hold all it
// holds: it is the mend's own product of this run, all of it durable
// elsewhere, and would double what git reads.
func (m *mender) dropWhole() error {
	if m.whole == "" || len(m.rewritten) == 0 {
		return nil
	}
	x, err := readIndex(m.whole, m.r.Format)
	if err != nil {
		return nil
	}
	kept, closeKept := openFetched(m.rewritten, m.r.Format)
	defer closeKept()
	for i := range x.Count() {
		if !kept.has(x.ID(i)) {
			return nil
		}
	}
	fsys := m.t.Store.FS()
	base := strings.TrimSuffix(m.whole, ".pack")
	for _, ext := range companions {
		if err := fsys.Remove(base + "." + ext); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return fsys.FlushDir(filepath.Dir(m.whole))
}
