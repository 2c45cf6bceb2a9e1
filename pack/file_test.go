package pack_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// TestFileAgainstGit indexes a git-made pack with git (idx v1, v2 and v2
// with every offset in the 64-bit table; SHA-1 and SHA-256) and reads every
// object back through Index and File, comparing with git cat-file.
func TestFileAgainstGit(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	for _, format := range []string{"sha1", "sha256"} {
		f, _ := object.ParseFormat(format)
		dir := gittest.Init(t, env, false, format)
		gittest.History(t, env, dir, 30, 25)
		packData := gittest.GitIn(t, env, dir, []byte{}, "pack-objects", "--all", "--stdout")
		p := filepath.Join(t.TempDir(), "p.pack")
		if err := os.WriteFile(p, packData, 0o644); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(gittest.Objects(t, env, dir)), "\n") {
			fs := strings.Fields(line)
			want[fs[0]] = fs[1]
		}
		versions := []string{"2", "2,0x40", "1"}
		if format == "sha256" {
			versions = versions[:2]
		}
		for _, v := range versions {
			gittest.Git(t, env, dir, "index-pack", "--index-version="+v, "-o", p+".idx", p)
			idxData, err := os.ReadFile(p + ".idx")
			if err != nil {
				t.Fatal(err)
			}
			idx, err := pack.ParseIndex(idxData, f)
			if err != nil {
				t.Fatalf("%s idx %s: %v", format, v, err)
			}
			if idx.Count() != len(want) {
				t.Fatalf("%s idx %s: %d objects, want %d", format, v, idx.Count(), len(want))
			}
			if string(idx.PackChecksum()) != string(packData[len(packData)-f.Size():]) {
				t.Errorf("%s idx %s: pack checksum differs", format, v)
			}
			file := pack.NewFile(readerAt(packData), idx, f)
			for hex, typ := range want {
				id, _ := object.ParseID(hex)
				gotType, data, err := file.Object(id)
				if err != nil {
					t.Fatalf("%s idx %s: %s: %v", format, v, hex, err)
				}
				sum, _ := f.Sum(gotType, data)
				if gotType.String() != typ || sum != id {
					t.Fatalf("%s idx %s: %s read as %v %v", format, v, hex, gotType, sum)
				}
			}
			missing, _ := object.ParseID(strings.Repeat("0", 2*f.Size()))
			if _, ok := idx.Find(missing); ok {
				t.Errorf("found the null id")
			}
		}
	}
}

type readerAt []byte

func (r readerAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(r)) {
		return 0, io.EOF
	}
	n := copy(p, r[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func TestParseIndexRejectsGarbage(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("\xfftOc\x00\x00\x00\x03"), make([]byte, 1000), make([]byte, 256*4+39)} {
		if _, err := pack.ParseIndex(data, object.SHA1); err == nil {
			t.Errorf("accepted %d bytes", len(data))
		}
	}
}

// TestEntryAtReturnsTheDelta reads a REF_DELTA entry back by offset: its
// header and the delta as sent, not the object it resolves to.
func TestEntryAtReturnsTheDelta(t *testing.T) {
	base, _ := object.ParseID(strings.Repeat("5a", 20))
	delta := (&packtest.Delta{}).Copy(0, 4).Insert([]byte("tail")).Bytes(10, 8)
	b := &packtest.Builder{}
	b.Object(object.Blob, []byte("a blob"))
	b.RefDelta(base, delta)
	file := pack.NewFile(readerAt(b.Pack()), nil, object.SHA1)
	e, data, err := file.EntryAt(b.Offset(1))
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != object.RefDelta || e.BaseID != base || e.Offset != b.Offset(1) || string(data) != string(delta) {
		t.Errorf("entry %+v, data %q; want the REF_DELTA on %v holding %q", e, data, base, delta)
	}
	if e, data, err := file.EntryAt(b.Offset(0)); err != nil || e.Type != object.Blob || string(data) != "a blob" {
		t.Errorf("blob entry %+v, %q, %v", e, data, err)
	}
}
