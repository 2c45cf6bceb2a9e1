package mend

import (
	"cmp"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/internal/verify"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// wholeShare is the share of the repository's packed bytes that the
// broken copies may hold before a mend fetches everything again instead of
// them by id: an object asked for by id comes whole (its delta's base is
// not sent), and each request is a walk of the upstream's own, so that
// past about a quarter of the bytes, by id costs more than a reclone.
const wholeShare = 4

// errOverBudget says that what came by id passed what a reclone would
// bring: the mend fetches everything instead.
var errOverBudget = errors.New("fetched by id more than a reclone brings")

// size is what the mend is about: the bytes the broken copies held in
// their packs (an entry cut off counted as far as the next one the index
// places), and the bytes of every pack (a pack cut short counted as long
// as its index says it was); and where each broken copy starts in its
// pack.
type size struct {
	broken, packs int64
	at            map[object.ID]int64
}

// measure reads the sizes of the repository's packs and of the broken
// copies of byPack from their layouts.
func (m *mender) measure(byPack map[string]map[object.ID]bool) size {
	s := size{at: map[object.ID]int64{}}
	names, _ := filepath.Glob(filepath.Join(m.r.ObjectDir, "pack", "pack-*.pack"))
	for _, p := range names {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		n := st.Size()
		layout := m.layout
		if byPack[p] == nil {
			layout = m.layoutOnce // no need to keep what no rewrite reads
		}
		if spans, err := layout(p); err == nil {
			n = max(n, layoutEnd(spans))
			for _, sp := range spans {
				if byPack[p][sp.ID] {
					s.broken += spanBytes(spans, sp)
					s.at[sp.ID] = sp.Start
				}
			}
		}
		s.packs += n
	}
	return s
}

// layout lays the damaged pack at path out by its index (verify.Layout),
// once a mend: what it measures is what it rewrites.
func (m *mender) layout(path string) ([]pack.Span, error) {
	if spans, ok := m.layouts[path]; ok {
		return spans, nil
	}
	_, spans, _, err := verify.Layout(path, m.r.Format)
	if err == nil {
		m.layouts[path] = spans
	}
	return spans, err
}

// layoutOnce lays the pack at path out by its index, keeping nothing.
func (m *mender) layoutOnce(path string) ([]pack.Span, error) {
	_, spans, _, err := verify.Layout(path, m.r.Format)
	return spans, err
}

// layoutEnd is where the last entry of spans (by offset) ends, as far as
// the index tells: a pack cut short reaches past its file.
func layoutEnd(spans []pack.Span) int64 {
	if len(spans) == 0 {
		return 0
	}
	last := spans[len(spans)-1]
	return last.Start + spanBytes(spans, last)
}

// spanBytes is the bytes of the entry sp of spans (by offset): from its
// start to the next entry's, or, for the last entry of a pack cut short,
// the mean of the others.
func spanBytes(spans []pack.Span, sp pack.Span) int64 {
	if sp.End > sp.Start {
		return sp.End - sp.Start
	}
	for i, o := range spans {
		if o.Start == sp.Start && i+1 < len(spans) {
			return spans[i+1].Start - sp.Start
		}
	}
	if len(spans) > 0 && sp.Start > 0 {
		return sp.Start / int64(len(spans))
	}
	return 0
}

// laterFirst orders the broken copies ids for a request by where they
// lay in their packs, the last first, those it does not place after: git
// writes a pack's trees before its blobs and a tree before the trees it
// holds, and upload-pack's filter hides a wanted object behind a wanted
// tree that holds it when it walks the tree first (askOrder); so ordered,
// the first request brings what it would have hidden (git.git to v2.0.0
// with 1 MiB zeroed mid-pack: 1,622 objects in 2 requests, not 3).
func (s size) laterFirst(ids []object.ID) {
	slices.SortStableFunc(ids, func(a, b object.ID) int {
		oa, okA := s.at[a]
		ob, okB := s.at[b]
		switch {
		case okA && okB:
			return cmp.Compare(ob, oa)
		case okA:
			return -1
		case okB:
			return 1
		}
		return 0
	})
}

// wholeWanted reports whether the mend of s fetches everything again: the
// broken copies hold more than 1/wholeShare of the packed bytes.
func (s size) wholeWanted() bool { return s.packs > 0 && s.broken*wholeShare > s.packs }

// tips takes the refs of an upstream's advertisement: the ids a fetch of
// everything wants.
type tips struct {
	seen map[object.ID]bool
	ids  []object.ID
}

// Symref is told of a symbolic ref: its target is wanted as a ref.
func (t *tips) Symref(string, string) {}

// Ref takes a ref; a peeled tag's line adds nothing.
func (t *tips) Ref(name []byte, id object.ID) error {
	if !strings.HasSuffix(string(name), "^{}") && !t.seen[id] {
		t.seen[id] = true
		t.ids = append(t.ids, id)
	}
	return nil
}

// Format is told of the upstream's object format.
func (t *tips) Format(object.Format) {}

// fetchWhole fetches everything the upstream's refs reach, as a mirror
// clone does (no haves), in this process: one answer unpacked into one
// pack of the store, checked as a fetch's objects are, published durably
// (unpack.Keep). It returns the pack's path.
func (m *mender) fetchWhole(rem *upstream.Remote, f *Fetcher) (string, error) {
	sink := &tips{seen: map[object.ID]bool{}}
	up, err := rem.OpenUpload(sink)
	if err != nil {
		return "", err
	}
	if up == nil {
		return "", errors.New("the upstream is empty")
	}
	defer up.Close()
	if err := up.CheckFormat(m.r.Format); err != nil {
		return "", err
	}
	f.alive()
	p, err := up.Fetch(&upstream.FetchRequest{Wants: sink.ids, NoProgress: true})
	if err != nil {
		return "", err
	}
	run := m.t.Begin()
	defer run.End()
	opts := run.Options(io.Discard, &unpack.Keep{})
	opts.Strict = f.Strict
	res, err := unpack.Run(f.Ctx, f.reader(p), m.t.Store, run.Policy, opts)
	if err == nil {
		err = p.Drain()
	}
	if f.Account != nil {
		f.Account(run.Stats(res), err)
	}
	if err != nil {
		return "", err
	}
	sum, err := hex.DecodeString(res.Pack)
	if err != nil {
		return "", err
	}
	return m.t.Store.PackPath(sum, "pack"), nil
}
