package pack_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// TestRewriteCopies: the broken entries of a git-made pack (the base of
// every delta, and every third entry) are replaced by the entries of a
// second pack that holds their good copies as git packs them — whole, or
// OFS deltas on one another, taken as REF deltas — byte for byte, none
// written whole; git index-pack --strict takes the new pack, in which
// every object reads as before. With the base of a copied delta left out
// (its good copy elsewhere), the copies on it are written whole instead.
// A copy whose bytes are not what its CRC says is refused.
func TestRewriteCopies(t *testing.T) {
	env, dir, data, entries, spans, file := historyPack(t)
	f := object.SHA1
	broken := map[object.ID]bool{}
	for k, s := range spans {
		if b, ok := baseSpan(t, file, spans, s); ok {
			broken[b.ID] = true
		}
		if k%3 == 0 {
			broken[s.ID] = true
		}
	}
	var list strings.Builder
	for id := range broken {
		list.WriteString(id.String() + "\n")
	}
	good := gittest.GitIn(t, env, dir, []byte(list.String()), "pack-objects", "--stdout", "--delta-base-offset")
	goodEntries, goodSpans := spansOf(t, good, f)
	at := map[int64]object.ID{}
	deltas := 0
	goodFile := pack.NewFile(bytes.NewReader(good), locator(goodEntries), f)
	for _, s := range goodSpans {
		at[s.Start] = s.ID
		if e, _ := goodFile.HeaderAt(s.Start); e.Type == object.OfsDelta {
			deltas++
		}
	}
	if deltas == 0 {
		t.Fatal("no delta among the good copies")
	}
	idAt := func(off int64) (object.ID, bool) { id, ok := at[off]; return id, ok }
	copyOf := func(id object.ID) (pack.Copied, bool) {
		for _, s := range goodSpans {
			if s.ID == id {
				c, err := pack.ReadCopy(bytes.NewReader(good), s.Start, s.End, s.CRC, f, idAt)
				return c, err == nil
			}
		}
		return pack.Copied{}, false
	}
	noWhole := func(id object.ID) (pack.Base, error) { return pack.Base{}, errors.New("not to be written whole") }
	var out bytes.Buffer
	r, err := pack.Rewrite(&out, bytes.NewReader(data), f, spans, pack.Mend{Broken: broken, Whole: noWhole, Copy: copyOf, Level: 1})
	if err != nil || r.Copied != len(broken) || len(r.Whole) != 0 || len(r.Entries) != len(spans) {
		t.Fatalf("%d copied of %d broken, %d whole, %d entries of %d: %v", r.Copied, len(broken), len(r.Whole), len(r.Entries), len(spans), err)
	}
	p := filepath.Join(t.TempDir(), "new.pack")
	os.WriteFile(p, out.Bytes(), 0o644)
	gittest.Git(t, env, dir, "index-pack", "--strict", p)
	check := pack.NewFile(bytes.NewReader(out.Bytes()), locator(r.Entries), f)
	for _, e := range entries {
		want, wantData, err := file.Object(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if typ, d, err := check.Object(e.ID); err != nil || typ != want || !bytes.Equal(d, wantData) {
			t.Fatalf("%s reads otherwise in the new pack: %v", e.ID, err)
		}
	}
	// A copy whose base is left out of the pack (its good copy elsewhere)
	// cannot lie there: it is written whole, from its good copy.
	var refBase object.ID
	for _, gs := range goodSpans {
		if c, ok := copyOf(gs.ID); ok && c.Type == object.RefDelta {
			refBase = c.Base
			break
		}
	}
	whole := func(id object.ID) (pack.Base, error) {
		typ, d, err := file.Object(id)
		return pack.Base{ID: id, Type: typ, Data: d}, err
	}
	out.Reset()
	r, err = pack.Rewrite(&out, bytes.NewReader(data), f, spans, pack.Mend{Broken: broken, Whole: whole, Copy: copyOf, Level: 1,
		Elsewhere: func(id object.ID) bool { return id == refBase }})
	if err != nil || r.Dropped != 1 || len(r.Whole) == 0 || r.Copied+len(r.Whole) != len(broken)-1 {
		t.Fatalf("the base %s left out: %d dropped, %d copied, %d whole of %d broken: %v", refBase, r.Dropped, r.Copied, len(r.Whole), len(broken), err)
	}
	os.WriteFile(p, out.Bytes(), 0o644)
	gittest.Git(t, env, dir, "index-pack", "--strict", p)
	s := goodSpans[0]
	bad := bytes.Clone(good)
	bad[s.End-1] ^= 1
	if _, err := pack.ReadCopy(bytes.NewReader(bad), s.Start, s.End, s.CRC, f, idAt); !errors.Is(err, pack.ErrCopyCRC) {
		t.Fatalf("a copy of bytes its CRC does not match: %v", err)
	}
}
