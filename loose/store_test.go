package loose_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

func write(t *testing.T, s *loose.Store, p *batch.Policy, typ object.Type, data []byte) object.ID {
	t.Helper()
	id, err := s.Format().Sum(typ, data)
	if err != nil {
		t.Fatal(err)
	}
	tx := p.Begin()
	if err := s.Write(tx, id, typ, data); err != nil {
		t.Fatal(err)
	}
	if err := tx.End(); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestWriteReadByGit writes objects of every type and size class and checks
// that git reads them, that fsck is clean and that the files have the mode
// of a loose object git writes under the same umask (0444 under 022).
func TestWriteReadByGit(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	for _, format := range []string{"sha1", "sha256"} {
		f, _ := object.ParseFormat(format)
		repo := gittest.Init(t, env, true, format)
		objs := filepath.Join(repo, "objects")
		s := loose.Open(batch.OS, objs, loose.Options{Format: f})
		p := batch.New(batch.OS, objs, batch.Options{Method: batch.Batch, Force: true}) // the counters of the scheme, on any filesystem
		big := bytes.Repeat([]byte("big blob data "), 200000)                           // above the streaming threshold
		var ids []object.ID
		for _, data := range [][]byte{nil, []byte("hello\n"), big} {
			ids = append(ids, write(t, s, p, object.Blob, data))
		}
		got := gittest.Git(t, env, repo, "cat-file", "-p", ids[1].String())
		if got != "hello\n" {
			t.Errorf("%s: cat-file says %q", format, got)
		}
		if size := gittest.Git(t, env, repo, "cat-file", "-s", ids[2].String()); strings.TrimSpace(size) != "2800000" {
			t.Errorf("big blob size %s", size)
		}
		gitID := strings.TrimSpace(string(gittest.GitIn(t, env, repo, []byte("written by git\n"), "hash-object", "-w", "--stdin")))
		gd, grest := gitID[:2], gitID[2:]
		want, err := os.Stat(filepath.Join(objs, gd, grest))
		if err != nil {
			t.Fatal(err)
		}
		d, rest := ids[1].Shard()
		fi, err := os.Stat(filepath.Join(objs, d, rest))
		if err != nil || fi.Mode().Perm() != want.Mode().Perm() {
			t.Errorf("mode %v %v, git's %v", fi.Mode(), err, want.Mode())
		}
		gittest.Fsck(t, env, repo)
		if st := p.Stats(); st.WriteoutOnly != 3 || st.HardwareFlush != 3 || st.Path != batch.PathBatch {
			t.Errorf("stats %+v", st)
		}
	}
}

// TestNeedRepairsBrokenObjects poisons loose objects the way a crash does
// and checks that Need asks for them again and the rewrite heals them.
func TestNeedRepairsBrokenObjects(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	repo := gittest.Init(t, env, true, "")
	objs := filepath.Join(repo, "objects")
	p := batch.New(batch.OS, objs, batch.Options{Method: batch.Batch, Force: true}) // the counters of the scheme, on any filesystem
	s := loose.Open(batch.OS, objs, loose.Options{})
	contents := []string{"empty me", "truncate me", "flip me", "swap me", "keep me"}
	var ids []object.ID
	for _, c := range contents {
		ids = append(ids, write(t, s, p, object.Blob, []byte(c)))
	}
	poison := func(id object.ID, f func([]byte) []byte) { poisonLoose(objs, id, f) }
	poison(ids[0], func([]byte) []byte { return nil })
	poison(ids[1], func(b []byte) []byte { return b[:len(b)/2] })
	poison(ids[2], func(b []byte) []byte { b[len(b)-1] ^= 0x40; return b })
	poison(ids[3], func([]byte) []byte { return deflate("blob 7\x00swap mE") })

	s = loose.Open(batch.OS, objs, loose.Options{}) // a new run
	for i, id := range ids {
		need, err := s.Need(id)
		if err != nil {
			t.Fatal(err)
		}
		if want := i < 4; need != want {
			t.Errorf("%q: need %v, want %v", contents[i], need, want)
		}
		if need {
			tx := p.Begin()
			if err := s.Write(tx, id, object.Blob, []byte(contents[i])); err != nil {
				t.Fatal(err)
			}
			tx.End()
		}
	}
	if s.Repaired() != 4 {
		t.Errorf("repaired %d", s.Repaired())
	}
	gittest.Fsck(t, env, repo)
	for i, id := range ids {
		typ, data, err := s.Read(id)
		if err != nil || typ != object.Blob || string(data) != contents[i] {
			t.Errorf("read %v: %v %q %v", id, typ, data, err)
		}
	}
}

// TestPacksAndAlternates reads and finds objects that live in packs, in an
// alternate's loose objects and in an alternate's packs.
func TestPacksAndAlternates(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	alt := gittest.Init(t, env, false, "")
	gittest.History(t, env, alt, 10, 5)
	gittest.Git(t, env, alt, "repack", "-adq")
	gittest.WriteFile(t, alt, "loose.txt", "a loose object in the alternate\n")
	altLoose := strings.TrimSpace(gittest.Git(t, env, alt, "hash-object", "-w", "loose.txt"))

	repo := gittest.Init(t, env, true, "")
	gittest.WriteFile(t, repo, "objects/info/alternates", "# comment\n"+filepath.Join(alt, ".git", "objects")+"\n")
	gittest.WriteFile(t, repo, "x", "own packed object\n")
	own := strings.TrimSpace(gittest.Git(t, env, repo, "hash-object", "-w", "x"))
	gittest.GitIn(t, env, repo, []byte(own+"\n"), "pack-objects", "-q", filepath.Join(repo, "objects/pack/pack"))
	os.RemoveAll(filepath.Join(repo, "objects", own[:2]))

	s := loose.Open(batch.OS, filepath.Join(repo, "objects"), loose.Options{})
	all := strings.Fields(gittest.Git(t, env, alt, "rev-list", "--objects", "--all", "--no-object-names"))
	all = append(all, altLoose, own)
	for _, hex := range all {
		id, _ := object.ParseID(hex)
		if need, err := s.Need(id); need || err != nil {
			t.Errorf("%s: need %v %v", hex, need, err)
		}
		typ, data, err := s.Read(id)
		if err != nil {
			t.Fatalf("%s: %v", hex, err)
		}
		if sum, _ := object.SHA1.Sum(typ, data); sum != id {
			t.Errorf("%s: read back as %v", hex, sum)
		}
	}
	missing, _ := object.ParseID(strings.Repeat("1", 40))
	if need, _ := s.Need(missing); !need {
		t.Error("missing object not needed")
	}
	if ok, _ := s.Has(missing); ok {
		t.Error("has a missing object")
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, raw := range [][]byte{nil, []byte("not zlib"), deflate("blob 5\x00abc"), deflate("blob 2\x00abc"),
		deflate("blob x\x00"), deflate("blob 01\x00a"), deflate("bolb 1\x00a"), deflate("blob 1a")} {
		if _, _, err := loose.Decode(raw); err == nil {
			t.Errorf("accepted %q", raw)
		}
	}
	typ, data, err := loose.Decode(deflate("tree 0\x00"))
	if err != nil || typ != object.Tree || len(data) != 0 {
		t.Errorf("empty tree: %v %q %v", typ, data, err)
	}
}

// noChtimes is a filesystem on which timestamps cannot be changed, as in a
// shared repository whose objects another user wrote.
type noChtimes struct{ batch.FS }

func (noChtimes) Chtimes(string, time.Time) error { return fs.ErrPermission }

// TestBrokenHereGoodInAlternate: a broken loose copy in the repository
// must not hide a good one in an alternate (the healing case), and an
// object whose copy cannot be freshened is written anew, as git does.
func TestBrokenHereGoodInAlternate(t *testing.T) {
	m := memfstest.New("/alt/objects", "/repo/objects/info")
	alt := loose.Open(m, "/alt/objects", loose.Options{})
	tx := batch.New(m, "/alt/objects", batch.Options{}).Begin()
	id, _ := object.SHA1.Sum(object.Blob, []byte("good\n"))
	if err := alt.Write(tx, id, object.Blob, []byte("good\n")); err != nil {
		t.Fatal(err)
	}
	d, rest := id.Shard()
	m.Mkdir("/repo/objects/"+d, 0o777)
	f, _ := m.Create("/repo/objects/"+d+"/"+rest, 0o444) // empty: what a crash leaves
	f.Close()
	info, _ := m.Create("/repo/objects/info/alternates", 0o644)
	info.Write([]byte("/alt/objects\n"))
	info.Close()

	s := loose.Open(m, "/repo/objects", loose.Options{})
	if typ, data, err := s.Read(id); err != nil || typ != object.Blob || string(data) != "good\n" {
		t.Errorf("read %v %q %v", typ, data, err)
	}
	if need, err := s.Need(id); !need || err != nil {
		t.Errorf("need %v %v: the broken copy here must be repaired", need, err)
	}
	s = loose.Open(noChtimes{m}, "/alt/objects", loose.Options{})
	if need, err := s.Need(id); !need || err != nil {
		t.Errorf("need %v %v: a copy that cannot be freshened must be written anew", need, err)
	}
}

// loosePath is the file of the loose object id under objs.
func loosePath(objs string, id object.ID) string {
	d, r := id.Shard()
	return filepath.Join(objs, d, r)
}

// poisonLoose rewrites the loose object id under objs as f makes its bytes
// (read-only again, as git leaves it): what a crash or a bad disk leaves.
func poisonLoose(objs string, id object.ID, f func([]byte) []byte) {
	path := loosePath(objs, id)
	raw, _ := os.ReadFile(path)
	os.Chmod(path, 0o644)
	os.WriteFile(path, f(raw), 0o444)
}

// TestReadPastDamagedPackCopy: where two packs hold an object and one copy
// is damaged, a read takes the other, whichever pack is looked at first;
// with both copies damaged the read fails.
func TestReadPastDamagedPackCopy(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	repo := gittest.Init(t, env, true, "")
	var ids []string
	for _, s := range []string{strings.Repeat("the object both packs hold\n", 200), "only in a\n", "only in b\n"} {
		gittest.WriteFile(t, repo, "x", s)
		ids = append(ids, strings.TrimSpace(gittest.Git(t, env, repo, "hash-object", "-w", "x")))
	}
	var packs []string
	for _, other := range ids[1:] {
		out := gittest.GitIn(t, env, repo, []byte(ids[0]+"\n"+other+"\n"), "pack-objects", "-q", filepath.Join(repo, "objects/pack/pack"))
		packs = append(packs, filepath.Join(repo, "objects/pack/pack-"+strings.TrimSpace(string(out))))
	}
	for _, hex := range ids {
		os.RemoveAll(filepath.Join(repo, "objects", hex[:2]))
	}
	id, _ := object.ParseID(ids[0])
	read := func() error {
		s := loose.Open(batch.OS, filepath.Join(repo, "objects"), loose.Options{})
		typ, data, err := s.Read(id)
		if err == nil && (typ != object.Blob || !strings.HasPrefix(string(data), "the object both")) {
			t.Fatalf("read back %v %.20q", typ, data)
		}
		return err
	}
	damage := func(pack string) []byte {
		good, err := os.ReadFile(pack + ".pack")
		if err != nil {
			t.Fatal(err)
		}
		off := packOffset(t, env, pack, ids[0])
		bad := bytes.Clone(good)
		for i := off + 8; i < off+24; i++ {
			bad[i] ^= 0x5a
		}
		os.Chmod(pack+".pack", 0o644)
		if err := os.WriteFile(pack+".pack", bad, 0o644); err != nil {
			t.Fatal(err)
		}
		return good
	}
	for _, p := range packs {
		good := damage(p)
		if err := read(); err != nil {
			t.Errorf("%s damaged: %v", filepath.Base(p), err)
		}
		if err := os.WriteFile(p+".pack", good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	damage(packs[0])
	damage(packs[1])
	if err := read(); err == nil {
		t.Error("both copies damaged, read succeeded")
	}
}

// packOffset returns where hex starts in pack, as its index says.
func packOffset(t *testing.T, env []string, pack, hex string) int {
	t.Helper()
	idx, err := os.ReadFile(pack + ".idx")
	if err != nil {
		t.Fatal(err)
	}
	out := gittest.GitIn(t, env, "", idx, "show-index")
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[1] == hex {
			off, err := strconv.Atoi(f[0])
			if err != nil {
				t.Fatal(err)
			}
			return off
		}
	}
	t.Fatalf("%s not in %s", hex, pack)
	return 0
}
