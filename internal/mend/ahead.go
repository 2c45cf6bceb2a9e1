package mend

import (
	"errors"
	"maps"
	"os"
	"slices"
	"sync/atomic"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// aheads are the damaged packs written again beside the fetch of their
// broken copies (rewriteAhead): the rewrite of a pack copies what comes
// before its first broken entry while the upstream answers, and waits
// there for the good copies (linguist's 41 MiB pack with a flipped byte:
// the mend in 0.139 s instead of 0.165 s, medians of 5 alternated).
type aheads struct {
	ready  chan struct{} // closed once the fetch is over (begun)
	slots  chan struct{} // one for each rewrite under way (aheadAtOnce)
	stop   atomic.Bool   // set when the rewrites are not wanted
	closed bool
	byPath map[string]*ahead
}

// aheadAtOnce is how many packs are written again at once beside the
// fetch: each holds its pack open, a temporary file and a few MiB of
// buffers, and a crash can cut off many packs of a mirror.
const aheadAtOnce = 2

// ahead is one pack's rewrite: done once write returned.
type ahead struct {
	done chan struct{}
	w    *rewriting
}

// rewriteAhead begins to write again, each in a goroutine of its own,
// the packs of packs (with the broken copies of each in byPack) that a
// mend of copies fetched by id writes again with their good copies in
// place of the broken entries: those whose every entry keeps no place (no
// .bitmap, no .mtimes) and that hold more than broken copies. Each takes
// for granted that every broken copy comes, and takes the good copies
// once the fetch is over (begin), of objects the fetched packs hold; take
// publishes a rewrite only where that held. The caller starts none where
// the fetch may bring more than the broken copies (a ref's missing
// commit, fetched with haves): mendPack sets a pack whose every entry
// came again aside instead.
func (m *mender) rewriteAhead(packs map[string]string, byPack map[string]map[object.ID]bool) *aheads {
	a := &aheads{ready: make(chan struct{}), slots: make(chan struct{}, aheadAtOnce), byPath: map[string]*ahead{}}
	for path := range packs {
		broken := byPack[path]
		if len(broken) == 0 {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			continue
		}
		spans, err := m.layout(path)
		if err != nil || keepsPlaces(path) || !slices.ContainsFunc(spans, func(s pack.Span) bool { return !broken[s.ID] }) {
			continue
		}
		broken = maps.Clone(broken) // the mend adds to its own as it goes on
		mend := pack.Mend{Broken: broken, Whole: a.fetchedCopy(m), Copy: a.fetchedEntry(m)}
		h := &ahead{done: make(chan struct{})}
		a.byPath[path] = h
		go func() {
			defer close(h.done)
			a.slots <- struct{}{}
			defer func() { <-a.slots }()
			h.w = m.write(path, spans, false, mend, &a.stop)
		}()
	}
	return a
}

// errNotFetched is a rewrite ahead's answer for a good copy the fetch did
// not bring: the rewrite is not published.
var errNotFetched = errors.New("not fetched again")

// fetchedCopy returns what reads the good copy of an object for a rewrite
// ahead: once the fetch is over, and only of an object the packs it wrote
// hold, as goodCopies reads it (from those packs, its hash checked).
func (a *aheads) fetchedCopy(m *mender) func(object.ID) (pack.Base, error) {
	return func(id object.ID) (pack.Base, error) {
		<-a.ready
		if a.stop.Load() || !m.fetched.has(id) {
			return pack.Base{}, errNotFetched
		}
		return goodCopies(m.t.Store, m.r.Format, m.fetched)(id)
	}
}

// fetchedEntry returns what gives a rewrite ahead the entry of a good
// copy as the packs the fetch wrote hold it (fetchedPacks.copyOf), once
// the fetch is over.
func (a *aheads) fetchedEntry(m *mender) func(object.ID) (pack.Copied, bool) {
	return func(id object.ID) (pack.Copied, bool) {
		<-a.ready
		if a.stop.Load() {
			return pack.Copied{}, false
		}
		return m.fetched.copyOf(id)
	}
}

// begin lets the rewrites go past their first broken entries: the fetch
// is over, and m.fetched set. Like take and end, it does nothing on nil
// (no rewrite ahead).
func (a *aheads) begin() {
	if a != nil && !a.closed {
		a.closed = true
		close(a.ready)
	}
}

// take returns the rewrite of the pack at path, once it is written, where
// it is what mendPack would write: it did not fail, nothing was fetched
// whole, every broken copy of broken came, and not every entry did (a
// pack whose every object came is only set aside). Any other is
// discarded, and nil returned.
func (a *aheads) take(m *mender, path string, broken map[object.ID]bool) *rewriting {
	if a == nil {
		return nil
	}
	h := a.byPath[path]
	if h == nil {
		return nil
	}
	delete(a.byPath, path)
	<-h.done
	if h.w.err != nil {
		return nil
	}
	if m.whole != "" || anyOf(broken, func(id object.ID) bool { return !m.fetched.has(id) }) {
		h.w.discard(m)
		return nil
	}
	if !slices.ContainsFunc(h.w.spans, func(s pack.Span) bool { return !m.fetched.has(s.ID) }) {
		// Every entry came again (a tree asked for by id from an upstream
		// that does not filter brings all it holds): mendPack sets the
		// pack aside instead.
		h.w.discard(m)
		return nil
	}
	return h.w
}

// end stops the rewrites not taken, waits for them and discards what
// they wrote: at the mend's end, and as soon as the fetch turns to
// everything (no rewrite ahead is published then, and none holds a
// temporary file while a whole clone comes).
func (a *aheads) end(m *mender) {
	if a == nil {
		return
	}
	a.stop.Store(true)
	a.begin()
	for path := range a.byPath {
		if w := a.take(m, path, nil); w != nil {
			w.discard(m)
		}
	}
}
