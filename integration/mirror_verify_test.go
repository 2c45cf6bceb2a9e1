//go:build !windows

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// TestMirrorVerify: --verify reads every object of each mirror as git
// fsck --full does: a sound mirror is "ok" with what it checked; one with
// a flipped byte in a packed blob, or a ref whose object is gone (where
// git fsck --full fails), is "ok" with what was found and repaired named
// (the object, its pack, the ref), exit 0. The metrics say what it found
// and repaired.
func TestMirrorVerify(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	tree := filepath.Join(base, "tree")
	sound, flipped, gone := filepath.Join(tree, "sound.git"), filepath.Join(tree, "flipped.git"), filepath.Join(tree, "gone.git")
	for _, dir := range []string{sound, flipped, gone} {
		gittest.Git(t, env, base, "clone", "-q", "--mirror", "-c", "fetch.unpackLimit=1", "durable::file://"+up, dir)
	}
	blob, off, packPath := packedBlob(t, env, flipped)
	flipByte(t, packPath, off+4)
	gittest.WriteFile(t, gone, "refs/heads/gone", strings.Repeat("5", 40)+"\n")
	for _, dir := range []string{flipped, gone} {
		if c := gittest.Exec(t, env, dir, nil, "git", "fsck", "--full"); c.Code == 0 {
			t.Errorf("git fsck --full passed %s", filepath.Base(dir))
		}
	}
	metrics := filepath.Join(base, "verify.prom")
	stats := filepath.Join(base, "stats")
	c := verifier(t, append(append([]string{}, env...), "GIT_REMOTE_DURABLE_STATS="+stats), "--metrics", metrics, tree)
	mustRun(t, c, "the verification")
	for dir, want := range map[string][2]string{
		sound:   {" ok ", ""},
		flipped: {"bad packed object CRC for ", blob.String()},
		gone:    {"refs/heads/gone: its object ", strings.Repeat("5", 40)},
	} {
		l := runnerLine(t, c, dir)
		if !strings.Contains(l, " ok ") || !strings.Contains(l, want[0]) || want[1] != "" && !mentions(l, want[1]) {
			t.Errorf("%s: %q, want %q", filepath.Base(dir), l, want)
		}
		if len(l) > 300 {
			t.Errorf("%s: a line of %d characters", filepath.Base(dir), len(l))
		}
		if v := verdictOf(t, stats, dir); want[1] != "" && !strings.Contains(v, want[1]) {
			t.Errorf("%s: the statistics' record %s lacks %q", filepath.Base(dir), v, want[1])
		}
	}
	if l := runnerLine(t, c, sound); !strings.Contains(l, "(verified ") {
		t.Errorf("sound: %q", l)
	}
	m := string(readFile(t, metrics))
	for _, want := range []string{series("git_durable_verify_success", tree, sound) + "1\n", series("git_durable_verify_broken_objects", tree, sound) + "0\n",
		series("git_durable_verify_success", tree, flipped) + "1\n", series("git_durable_verify_broken_objects", tree, flipped) + "1\n",
		series("git_durable_verify_repaired_objects", tree, flipped) + "1\n", series("git_durable_verify_broken_objects", tree, gone) + "1\n"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q:\n%s", want, m)
		}
	}
	promtoolCheck(t, m)
}

// damage is a way a disk breaks a mirror, and what the verification names.
type damage struct {
	name string
	do   func(t *testing.T, env []string, dir string)
}

// packIndex returns the index of the mirror dir's only pack, and the
// pack's path.
func packIndex(t *testing.T, dir string) (*pack.Index, string) {
	t.Helper()
	idxs, _ := filepath.Glob(filepath.Join(dir, "objects/pack/*.idx"))
	if len(idxs) != 1 {
		t.Fatalf("packs of %s: %v", dir, idxs)
	}
	idx, err := pack.ParseIndex(readFile(t, idxs[0]), object.SHA1)
	if err != nil {
		t.Fatal(err)
	}
	return idx, strings.TrimSuffix(idxs[0], ".idx") + ".pack"
}

// flipPacked flips a byte inside the entry of the first object of the
// pack that want takes (its type as git names it, its pack entry).
func flipPacked(want func(typ string, e pack.Entry) bool) func(t *testing.T, env []string, dir string) {
	return func(t *testing.T, env []string, dir string) {
		idx, path := packIndex(t, dir)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		file := pack.NewFile(f, idx, object.SHA1)
		for i := range idx.Count() {
			off, _ := idx.Offset(i)
			e, err := file.HeaderAt(off)
			typ := strings.TrimSpace(gittest.Git(t, env, dir, "cat-file", "-t", idx.ID(i).String()))
			if err == nil && want(typ, e) {
				flipByte(t, path, off+4)
				return
			}
		}
		t.Fatal("no such object in the pack")
	}
}

// baseOfDelta is a packed entry that an OFS_DELTA of the pack of dir
// takes for its base.
func baseOfDelta(t *testing.T, dir string) int64 {
	idx, path := packIndex(t, dir)
	f, _ := os.Open(path)
	defer f.Close()
	file := pack.NewFile(f, idx, object.SHA1)
	for i := range idx.Count() {
		off, _ := idx.Offset(i)
		if e, err := file.HeaderAt(off); err == nil && e.Type == object.OfsDelta {
			return e.BaseOffset
		}
	}
	t.Fatal("no delta in the pack")
	return 0
}

var damages = []damage{
	{"blob", flipPacked(func(typ string, e pack.Entry) bool { return typ == "blob" && e.Type == object.Blob })},
	{"tree", flipPacked(func(typ string, e pack.Entry) bool { return typ == "tree" })},
	{"commit", flipPacked(func(typ string, e pack.Entry) bool { return typ == "commit" })},
	{"delta", flipPacked(func(_ string, e pack.Entry) bool { return e.Type == object.OfsDelta })},
	{"delta base", func(t *testing.T, env []string, dir string) {
		_, path := packIndex(t, dir)
		flipByte(t, path, baseOfDelta(t, dir)+4)
	}},
	{"truncated pack", func(t *testing.T, env []string, dir string) {
		_, path := packIndex(t, dir)
		b := readFile(t, path)
		os.WriteFile(path, b[:len(b)*2/3], 0o444)
	}},
	{"corrupt index", func(t *testing.T, env []string, dir string) {
		_, path := packIndex(t, dir)
		flipByte(t, strings.TrimSuffix(path, ".pack")+".idx", 1030)
	}},
	{"missing index", func(t *testing.T, env []string, dir string) {
		_, path := packIndex(t, dir)
		os.Remove(strings.TrimSuffix(path, ".pack") + ".idx")
	}},
	{"torn loose object", func(t *testing.T, env []string, dir string) {
		id := strings.TrimSpace(gittest.Git(t, env, dir, "rev-parse", "main^{tree}"))
		p := filepath.Join(dir, "objects", id[:2], id[2:])
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x\x9c"), 0o444) // a loose copy cut short, beside the packed one
	}},
	{"ref to a missing object", func(t *testing.T, env []string, dir string) {
		gittest.WriteFile(t, dir, "refs/heads/gone", strings.Repeat("6", 40)+"\n")
	}},
}

// TestMirrorVerifyRepairs: a mirror of a real history damaged each way a
// disk damages one — a flipped byte in a packed blob, tree, commit, delta
// and delta base; a pack cut short; a corrupt or missing index; a torn
// loose object; a ref to an object that is not there — fails git fsck
// --full; --verify finds the damage, fetches the broken objects again by
// id, writes the damaged pack again, and says so on an "ok" line: git fsck
// --strict --full is then clean, the refs are the upstream's, and the
// metrics count what was found and repaired.
func TestMirrorVerifyRepairs(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			tree := filepath.Join(t.TempDir(), "tree")
			m := filepath.Join(tree, "m.git")
			gittest.Git(t, env, base, "clone", "-q", "--mirror", "-c", "fetch.unpackLimit=1", "durable::file://"+up, m)
			want := refs(t, env, m)
			d.do(t, env, m)
			if c := gittest.Exec(t, env, m, nil, "git", "fsck", "--full"); c.Code == 0 && d.name != "ref to a missing object" {
				t.Errorf("git fsck --full passed the damaged mirror")
			}
			metrics := filepath.Join(tree, "..", "v.prom")
			c := verifier(t, env, "--metrics", metrics, tree)
			l := runnerLine(t, c, m)
			if c.Code != 0 || !strings.Contains(l, " ok ") || !strings.Contains(l, "mended in") && !strings.Contains(l, "recloned in") {
				t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
			}
			gittest.Git(t, env, m, "fsck", "--strict", "--full")
			gittest.Fsck(t, env, m)
			if got := refs(t, env, m); got != want {
				t.Errorf("refs\n%s\nbefore the damage\n%s", got, want)
			}
			mtx := string(readFile(t, metrics))
			if strings.Contains(mtx, series("git_durable_verify_broken_objects", tree, m)+"0\n") || !strings.Contains(mtx, series("git_durable_verify_success", tree, m)+"1\n") {
				t.Errorf("metrics:\n%s", mtx)
			}
			if c := verifier(t, env, tree); c.Code != 0 || strings.Contains(runnerLine(t, c, m), "mended") {
				t.Errorf("a second verification: exit %d\n%s%s", c.Code, c.Stdout, c.Stderr)
			}
		})
	}
}

// TestMirrorVerifyUpstreamLacks: where the upstream no longer has a broken
// object (its history rewritten), the repair fails for it with a line that
// names it, and touches nothing else: the damaged pack stays as it was,
// with no pack beside it nor any temporary file, and the refs are
// unchanged.
func TestMirrorVerifyUpstreamLacks(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	other := newUpstream(t, env, base, "other.git") // the history before the rewrite
	advance(t, env, up, 1, "rewritten-away")
	tree := filepath.Join(base, "tree")
	m := filepath.Join(tree, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", "-c", "fetch.unpackLimit=1", "durable::file://"+up, m)
	gittest.Git(t, env, m, "config", "remote.origin.url", "durable::file://"+other)
	blob, off, path := packedBlobIf(t, env, m, func(id object.ID) bool {
		return gittest.Exec(t, env, other, nil, "git", "cat-file", "-e", id.String()).Code != 0
	})
	flipByte(t, path, off+4)
	damaged := string(readFile(t, path))
	before := refs(t, env, m)
	c := verifier(t, env, tree)
	l := runnerLine(t, c, m)
	if c.Code != 1 || !strings.Contains(l, " failed ") || !strings.Contains(l, "the upstream did not send 1 of the 1 broken objects ("+blob.String()+")") {
		t.Errorf("exit %d, %q", c.Code, l)
	}
	if string(readFile(t, path)) != damaged {
		t.Errorf("the damaged pack was changed")
	}
	if packs, _ := filepath.Glob(filepath.Join(m, "objects/pack/*.pack")); len(packs) != 1 {
		t.Errorf("packs: %v", packs)
	}
	// The pack written again beside the fetch, for granted that the
	// object would come, is not left behind.
	if temps, _ := filepath.Glob(filepath.Join(m, "objects/pack/tmp_*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
	if after := refs(t, env, m); after != before {
		t.Errorf("refs changed:\n%s", after)
	}
}
