package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// packedRepo returns a bare repository of format whose history is one pack
// (deltas among its blobs and trees) beside a few loose objects, and the
// paths of its pack and index.
func packedRepo(t *testing.T, env []string, format string) (dir, packPath, idxPath string) {
	t.Helper()
	dir = gittest.Init(t, env, true, format)
	gittest.History(t, env, dir, 20, 15)
	gittest.Git(t, env, dir, "repack", "-a", "-d", "-q")
	gittest.GitIn(t, env, dir, []byte("loose one\n"), "hash-object", "-w", "--stdin")
	idx, _ := filepath.Glob(filepath.Join(dir, "objects/pack/*.idx"))
	if len(idx) != 1 {
		t.Fatalf("packs: %v", idx)
	}
	return dir, strings.TrimSuffix(idx[0], ".idx") + ".pack", idx[0]
}

// objectOfType returns an object of the pack whose index is idxPath with
// the type typ (as git cat-file -t says it), and where its entry starts.
func objectOfType(t *testing.T, env []string, dir, idxPath string, f object.Format, typ string) (object.ID, int64) {
	t.Helper()
	data, err := os.ReadFile(idxPath)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := pack.ParseIndex(data, f)
	if err != nil {
		t.Fatal(err)
	}
	for i := range idx.Count() {
		id := idx.ID(i)
		if strings.TrimSpace(gittest.Git(t, env, dir, "cat-file", "-t", id.String())) == typ {
			off, _ := idx.Offset(i)
			return id, off
		}
	}
	t.Fatalf("no %s in the pack", typ)
	return object.ID{}, 0
}

// flip changes the byte at off of the file path.
func flip(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := []byte{0}
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x40
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// TestRepository damages a repository the ways a disk does — a flipped
// byte in a packed blob, tree and commit, a truncated pack, a corrupt or
// missing index, a torn loose object — and checks each time that git fsck
// --full fails, that Repository names the damage (the object, or the pack
// as a whole), and that a sound repository has none.
func TestRepository(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	for _, format := range []string{"sha1", "sha256"} {
		f, _ := object.ParseFormat(format)
		dir, _, _ := packedRepo(t, env, format)
		rep, err := Repository(context.Background(), filepath.Join(dir, "objects"), f, Options{})
		if err != nil || len(rep.Damage) != 0 || rep.Packs != 1 || rep.PackedObjects == 0 || rep.LooseObjects != 1 {
			t.Fatalf("%s, sound: %+v %v", format, rep, err)
		}
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, env []string, dir, packPath, idxPath string) object.ID // the object named, or zero
		whole  string                                                                    // the pack's damage, or ""
	}{
		{"blob", flipObject("blob"), ""},
		{"tree", flipObject("tree"), ""},
		{"commit", flipObject("commit"), ""},
		{"truncated pack", func(t *testing.T, _ []string, _, packPath, _ string) object.ID {
			st, _ := os.Stat(packPath)
			os.Truncate(packPath, st.Size()/2)
			return object.ID{}
		}, "packfile does not match index"},
		{"corrupt index", func(t *testing.T, _ []string, _, _, idxPath string) object.ID {
			flip(t, idxPath, 1100)
			return object.ID{}
		}, "has a bad checksum"},
		{"missing index", func(t *testing.T, _ []string, _, _, idxPath string) object.ID {
			os.Remove(idxPath)
			return object.ID{}
		}, "pack without its index"},
		{"torn loose object", func(t *testing.T, env []string, dir, _, _ string) object.ID {
			id := strings.TrimSpace(string(gittest.GitIn(t, env, dir, []byte("another loose one\n"), "hash-object", "-w", "--stdin")))
			p := filepath.Join(dir, "objects", id[:2], id[2:])
			os.Chmod(p, 0o644)
			os.Truncate(p, 5)
			oid, _ := object.ParseID(id)
			return oid
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, packPath, idxPath := packedRepo(t, env, "sha1")
			id := tc.damage(t, env, dir, packPath, idxPath)
			if c := gittest.Exec(t, env, dir, nil, "git", "fsck", "--full"); c.Code == 0 {
				t.Errorf("git fsck --full passed the damaged repository")
			}
			rep, err := Repository(context.Background(), filepath.Join(dir, "objects"), object.SHA1, Options{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, d := range rep.Damage {
				found = found || !id.IsZero() && d.ID == id || tc.whole != "" && d.ID.IsZero() && strings.Contains(d.Why, tc.whole)
			}
			if !found {
				t.Errorf("damage not named (want %v %q): %+v", id, tc.whole, rep.Damage)
			}
		})
	}
}

// flipObject damages the entry of a packed object of type typ in the
// middle of its compressed data, and returns its id.
func flipObject(typ string) func(t *testing.T, env []string, dir, packPath, idxPath string) object.ID {
	return func(t *testing.T, env []string, dir, packPath, idxPath string) object.ID {
		id, off := objectOfType(t, env, dir, idxPath, object.SHA1, typ)
		flip(t, packPath, off+4)
		return id
	}
}
