package pack_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// indexEntries reads a pack stream and computes every entry's id (resolving
// deltas in memory: test packs are small), offset and CRC-32.
func indexEntries(t *testing.T, data []byte, f object.Format) []pack.IndexEntry {
	t.Helper()
	r := pack.NewReader(bytes.NewReader(data), pack.ReaderOptions{Format: f, CRC32: true})
	type obj struct {
		typ  object.Type
		data []byte
	}
	byOff := map[int64]obj{}
	byID := map[object.ID]obj{}
	var out []pack.IndexEntry
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		d, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		crc, err := r.CRC32()
		if err != nil {
			t.Fatal(err)
		}
		o := obj{e.Type, d}
		switch e.Type {
		case object.OfsDelta, object.RefDelta:
			base, ok := byOff[e.BaseOffset]
			if e.Type == object.RefDelta {
				base, ok = byID[e.BaseID]
			}
			if !ok {
				t.Fatalf("base of the entry at %d not seen", e.Offset)
			}
			if o.data, err = pack.ApplyDelta(nil, base.data, d); err != nil {
				t.Fatal(err)
			}
			o.typ = base.typ
		}
		id, _ := f.Sum(o.typ, o.data)
		byOff[e.Offset], byID[id] = o, o
		out = append(out, pack.IndexEntry{ID: id, Offset: e.Offset, CRC32: crc})
	}
	return out
}

// TestWriteIndexMatchesGit writes the index and reverse index of git-made
// packs (SHA-1 and SHA-256; 64-bit offsets forced through git's option)
// and compares them byte for byte with git index-pack's.
func TestWriteIndexMatchesGit(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	for _, format := range []string{"sha1", "sha256"} {
		f, _ := object.ParseFormat(format)
		dir := gittest.Init(t, env, true, format)
		gittest.History(t, env, dir, 30, 30)
		data := gittest.GitIn(t, env, dir, []byte{}, "pack-objects", "--all", "--stdout", "--delta-base-offset")
		p := filepath.Join(t.TempDir(), "p.pack")
		os.WriteFile(p, data, 0o644)
		entries := indexEntries(t, data, f)
		pack.SortIndexEntries(entries)
		sum := data[len(data)-f.Size():]
		gittest.Git(t, env, dir, "-c", "pack.writeReverseIndex=true", "index-pack", "--rev-index", "-o", p+".idx", p)
		var idx, rev bytes.Buffer
		if _, err := pack.WriteIndex(&idx, entries, sum, f); err != nil {
			t.Fatal(err)
		}
		if err := pack.WriteReverseIndex(&rev, entries, sum, f); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(p + ".idx")
		if !bytes.Equal(idx.Bytes(), want) {
			t.Errorf("%s: idx differs from git's (%d and %d bytes)", format, idx.Len(), len(want))
		}
		// git's index, read back: its CRCs are the entries', its checksum
		// that of the bytes it covers.
		gitIdx, err := pack.ParseIndex(want, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			i, ok := gitIdx.Find(e.ID)
			if crc, has := gitIdx.CRC(i); !ok || !has || crc != e.CRC32 {
				t.Errorf("%s: CRC of %s: %x %v, want %x", format, e.ID, crc, has, e.CRC32)
			}
		}
		sum, covered := gitIdx.Checksum()
		h := f.New()
		h.Write(covered)
		if !bytes.Equal(h.Sum(nil), sum) {
			t.Errorf("%s: the index's checksum is not that of what it covers", format)
		}
		wantRev, _ := os.ReadFile(p + ".rev") // index-pack -o p.pack.idx writes p.pack.rev
		if !bytes.Equal(rev.Bytes(), wantRev) {
			t.Errorf("%s: rev differs from git's (%d and %d bytes)", format, rev.Len(), len(wantRev))
		}
		// Large offsets: every entry claims one above 2 GiB; the index
		// must parse back to the same offsets.
		for i := range entries {
			entries[i].Offset += 3 << 30
		}
		idx.Reset()
		if _, err := pack.WriteIndex(&idx, entries, sum, f); err != nil {
			t.Fatal(err)
		}
		back, err := pack.ParseIndex(idx.Bytes(), f)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range entries {
			off, err := back.Offset(i)
			if err != nil || off != e.Offset || back.ID(i) != e.ID {
				t.Fatalf("entry %d: %d %v, want %d", i, off, err, e.Offset)
			}
		}
	}
}
