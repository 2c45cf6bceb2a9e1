package pack_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// TestRewrite rewrites a git-made pack (OFS_DELTA chains among its blobs
// and trees): with no entry broken it gives the same bytes; with the base
// of a delta chain and a delta replaced by whole objects, git index-pack
// --strict takes the new pack, and every object reads as before.
func TestRewrite(t *testing.T) {
	env, dir, data, entries, spans, file := historyPack(t)
	f := object.SHA1
	src := bytes.NewReader(data)
	whole := func(id object.ID) (pack.Base, error) {
		typ, d, err := file.Object(id)
		return pack.Base{ID: id, Type: typ, Data: d}, err
	}
	var same bytes.Buffer
	if r, err := pack.Rewrite(&same, src, f, spans, pack.Mend{Whole: whole, Level: 1}); err != nil || len(r.Whole) != 0 {
		t.Fatal(err)
	}
	if !bytes.Equal(same.Bytes(), data) {
		t.Fatalf("nothing broken: %d bytes, the pack %d", same.Len(), len(data))
	}
	// A base with deltas on it, and one of those deltas.
	broken := map[object.ID]bool{}
	for _, s := range spans {
		if b, ok := baseSpan(t, file, spans, s); ok && len(broken) == 0 {
			broken[b.ID], broken[s.ID] = true, true
		}
	}
	if len(broken) != 2 {
		t.Fatalf("no delta in the pack: %v", broken)
	}
	var out bytes.Buffer
	r, err := pack.Rewrite(&out, src, f, spans, pack.Mend{Broken: broken, Whole: whole, Level: 1})
	if err != nil || len(r.Whole) != len(broken) {
		t.Fatal(len(r.Whole), err)
	}
	sum, idx := r.Sum, r.Entries
	if !bytes.Equal(out.Bytes()[out.Len()-f.Size():], sum) || len(idx) != len(spans) {
		t.Fatalf("trailer %x, %d entries", sum, len(idx))
	}
	p := filepath.Join(t.TempDir(), "new.pack")
	os.WriteFile(p, out.Bytes(), 0o644)
	gittest.Git(t, env, dir, "index-pack", "--strict", "-o", p+".idx", p)
	check := pack.NewFile(bytes.NewReader(out.Bytes()), locator(idx), f)
	for _, e := range entries {
		typ, d, err := check.Object(e.ID)
		if err != nil {
			t.Fatalf("%s in the new pack: %v", e.ID, err)
		}
		if id, _ := f.Sum(typ, d); id != e.ID {
			t.Fatalf("%s reads as %s in the new pack", e.ID, id)
		}
	}
}

// TestRewriteFindsBadBytes: an entry whose bytes are not what its CRC
// says, and the entries a pack cut short lost, are replaced too, though
// nobody named them broken; the new pack reads whole.
func TestRewriteFindsBadBytes(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	f := object.SHA1
	dir := gittest.Init(t, env, true, "")
	gittest.History(t, env, dir, 10, 10)
	data := gittest.GitIn(t, env, dir, []byte{}, "pack-objects", "--all", "--stdout", "--delta-base-offset")
	entries, spans := spansOf(t, data, f)
	good := pack.NewFile(bytes.NewReader(data), locator(entries), f)
	whole := func(id object.ID) (pack.Base, error) {
		typ, d, err := good.Object(id)
		return pack.Base{ID: id, Type: typ, Data: d}, err
	}
	damaged := append([]byte(nil), data[:len(data)-300]...) // cut short
	damaged[spans[2].Start+3] ^= 0x40                       // and a flipped byte
	var out bytes.Buffer
	r, err := pack.Rewrite(&out, bytes.NewReader(damaged), f, spans, pack.Mend{Whole: whole, Level: 1})
	if err != nil || len(r.Whole) < 2 {
		t.Fatalf("%d replaced, %v", len(r.Whole), err)
	}
	check := pack.NewFile(bytes.NewReader(out.Bytes()), locator(r.Entries), f)
	for _, e := range entries {
		typ, d, err := check.Object(e.ID)
		if id, _ := f.Sum(typ, d); err != nil || id != e.ID {
			t.Fatalf("%s in the new pack: %v", e.ID, err)
		}
	}
}

// historyPack makes a repository of 20 commits, packs its history as git
// does (OFS deltas), and returns git's environment, the repository, the
// pack, its index entries and spans (spansOf), and a File reading it.
func historyPack(t *testing.T) (env []string, dir string, data []byte, entries []pack.IndexEntry, spans []pack.Span, file *pack.File) {
	t.Helper()
	gittest.Need(t)
	env = gittest.Env(t)
	dir = gittest.Init(t, env, true, "")
	gittest.History(t, env, dir, 20, 20)
	data = gittest.GitIn(t, env, dir, []byte{}, "pack-objects", "--all", "--stdout", "--delta-base-offset")
	entries, spans = spansOf(t, data, object.SHA1)
	return env, dir, data, entries, spans, pack.NewFile(bytes.NewReader(data), locator(entries), object.SHA1)
}

// baseSpan returns the span of the base of s, where file holds s as an
// OFS_DELTA.
func baseSpan(t *testing.T, file *pack.File, spans []pack.Span, s pack.Span) (pack.Span, bool) {
	t.Helper()
	e, err := file.HeaderAt(s.Start)
	if err != nil {
		t.Fatal(err)
	}
	if e.Type == object.OfsDelta {
		for _, b := range spans {
			if b.Start == e.BaseOffset {
				return b, true
			}
		}
	}
	return pack.Span{}, false
}

// spansOf returns the index entries of the pack data in the order of
// their offsets, and its spans (each with its position in the index).
func spansOf(t *testing.T, data []byte, f object.Format) ([]pack.IndexEntry, []pack.Span) {
	entries := indexEntries(t, data, f)
	pack.SortIndexEntries(entries)
	rank := map[object.ID]int{}
	for k, e := range entries {
		rank[e.ID] = k
	}
	sort.Slice(entries, func(a, b int) bool { return entries[a].Offset < entries[b].Offset })
	spans := make([]pack.Span, len(entries))
	for k, e := range entries {
		end := int64(len(data) - f.Size())
		if k+1 < len(entries) {
			end = entries[k+1].Offset
		}
		spans[k] = pack.Span{ID: e.ID, Pos: rank[e.ID], Start: e.Offset, End: end, CRC: e.CRC32, HasCRC: true}
	}
	return entries, spans
}

// locator finds entries by id.
type locator []pack.IndexEntry

func (l locator) FindOffset(id object.ID) (int64, bool) {
	for _, e := range l {
		if e.ID == id {
			return e.Offset, true
		}
	}
	return 0, false
}

// TestWriteWhole: a pack of whole objects that git index-pack --strict
// takes, each object reading as it was.
func TestWriteWhole(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	f := object.SHA1
	objs := []pack.Base{{Type: object.Blob, Data: []byte("one\n")}, {Type: object.Blob, Data: bytes.Repeat([]byte("two "), 1000)}}
	for i := range objs {
		objs[i].ID, _ = f.Sum(objs[i].Type, objs[i].Data)
	}
	var out bytes.Buffer
	sum, idx, err := pack.WriteWhole(&out, f, len(objs), func(i int) (pack.Base, error) { return objs[i], nil }, 1)
	if err != nil || len(idx) != 2 || !bytes.Equal(out.Bytes()[out.Len()-20:], sum) {
		t.Fatal(err)
	}
	dir := gittest.Init(t, env, true, "")
	p := filepath.Join(t.TempDir(), "w.pack")
	os.WriteFile(p, out.Bytes(), 0o644)
	gittest.Git(t, env, dir, "index-pack", "--strict", "-o", p+".idx", p)
	r := pack.NewFile(bytes.NewReader(out.Bytes()), locator(idx), f)
	for _, o := range objs {
		if typ, d, err := r.Object(o.ID); err != nil || typ != o.Type || !bytes.Equal(d, o.Data) {
			t.Fatalf("%s: %v", o.ID, err)
		}
	}
}

// TestRewriteLeavesOut: broken entries whose good copy lies elsewhere are
// left out — among them the base of a delta, which is then written whole
// from the base's good copy — in packs of OFS and of REF deltas; git
// index-pack --strict takes the new pack, which holds every other object.
func TestRewriteLeavesOut(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	f := object.SHA1
	dir := gittest.Init(t, env, true, "")
	gittest.History(t, env, dir, 20, 20)
	for _, ofs := range []bool{true, false} {
		args := []string{"pack-objects", "--all", "--stdout"}
		if ofs {
			args = append(args, "--delta-base-offset")
		}
		data := gittest.GitIn(t, env, dir, []byte{}, args...)
		entries, spans := spansOf(t, data, f)
		file := pack.NewFile(bytes.NewReader(data), locator(entries), f)
		// The good copies elsewhere are those of the broken objects: a
		// delta on a base left out is applied to the base's.
		broken := map[object.ID]bool{}
		whole := func(id object.ID) (pack.Base, error) {
			if !broken[id] {
				return pack.Base{}, fmt.Errorf("no good copy of %s elsewhere", id)
			}
			typ, d, err := file.Object(id)
			return pack.Base{ID: id, Type: typ, Data: d}, err
		}
		// The base of every delta, and every fourth entry.
		deltas := 0
		for k, s := range spans {
			e, err := file.HeaderAt(s.Start)
			if err != nil {
				t.Fatal(err)
			}
			switch e.Type {
			case object.OfsDelta:
				deltas++
				for _, b := range spans {
					if b.Start == e.BaseOffset {
						broken[b.ID] = true
					}
				}
			case object.RefDelta:
				deltas++
				broken[e.BaseID] = true
			}
			if k%4 == 0 {
				broken[s.ID] = true
			}
		}
		if deltas == 0 {
			t.Fatalf("ofs=%v: no delta in the pack", ofs)
		}
		var out bytes.Buffer
		r, err := pack.Rewrite(&out, bytes.NewReader(data), f, spans,
			pack.Mend{Broken: broken, Elsewhere: func(object.ID) bool { return true }, Whole: whole, Level: 1})
		if err != nil || r.Dropped != len(broken) || len(r.Entries) != len(spans)-len(broken) || len(r.Whole) == 0 {
			t.Fatalf("ofs=%v: %d left out, %d entries, %d written whole, %v", ofs, r.Dropped, len(r.Entries), len(r.Whole), err)
		}
		// The index and the .rev in IndexOrder's order are what sorting
		// gives, and what git index-pack writes.
		byID, rev := r.IndexOrder(spans)
		sorted := slices.Clone(r.Entries)
		pack.SortIndexEntries(sorted)
		var ours, want bytes.Buffer
		pack.WriteReverseIndexOf(&ours, rev, r.Sum, f)
		pack.WriteReverseIndex(&want, sorted, r.Sum, f)
		if !slices.Equal(byID, sorted) || !bytes.Equal(ours.Bytes(), want.Bytes()) {
			t.Fatalf("ofs=%v: IndexOrder differs from a sort", ofs)
		}
		p := filepath.Join(t.TempDir(), "new.pack")
		os.WriteFile(p, out.Bytes(), 0o644)
		gittest.Git(t, env, dir, "index-pack", "--strict", "--rev-index", "-o", p[:len(p)-len(".pack")]+".idx", p)
		if b, err := os.ReadFile(p[:len(p)-len(".pack")] + ".rev"); err != nil || !bytes.Equal(b, ours.Bytes()) {
			t.Fatalf("ofs=%v: the .rev differs from git index-pack's (%v)", ofs, err)
		}
		check := pack.NewFile(bytes.NewReader(out.Bytes()), locator(r.Entries), f)
		for _, e := range entries {
			typ, d, err := check.Object(e.ID)
			if broken[e.ID] {
				if err == nil {
					t.Fatalf("ofs=%v: %s, left out, is in the new pack", ofs, e.ID)
				}
				continue
			}
			if id, _ := f.Sum(typ, d); err != nil || id != e.ID {
				t.Fatalf("ofs=%v: %s in the new pack: %v", ofs, e.ID, err)
			}
		}
	}
}
