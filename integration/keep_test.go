package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// TestKeepMatchesIndexPack keeps a large pack and checks it against git:
// one pack, no loose object, .idx and .rev byte-identical to git
// index-pack's for the same pack, .keep holding the message, verify-pack
// and fsck --strict clean.
func TestKeepMatchesIndexPack(t *testing.T) {
	env := env(t)
	src := historyRepo(t, env)
	data := packOf(t, env, src, "", "--all", "--delta-base-offset")
	repo := gittest.Init(t, env, true, "")
	r := unpackInto(t, env, repo, "unpack-durable", data, "--keep=fetched by a test", "--stats")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	files := packFiles(t, repo)
	if len(files["pack"]) != 1 || len(files["idx"]) != 1 || len(files["rev"]) != 1 || len(files["keep"]) != 1 || looseCount(t, repo) != 0 {
		t.Fatalf("files %v, %d loose objects", files, looseCount(t, repo))
	}
	name := strings.TrimSuffix(filepath.Base(files["pack"][0]), ".pack")
	if !strings.HasPrefix(string(r.Stdout), "keep\t"+strings.TrimPrefix(name, "pack-")+"\n") {
		t.Errorf("stdout %q", r.Stdout)
	}
	if keep, _ := os.ReadFile(files["keep"][0]); string(keep) != "fetched by a test\n" {
		t.Errorf(".keep holds %q", keep)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "x.pack")
	os.WriteFile(p, data, 0o644)
	gittest.Git(t, env, repo, "-c", "pack.writeReverseIndex=true", "index-pack", "--rev-index", "-o", p+".idx", p)
	for ext, want := range map[string]string{"idx": p + ".idx", "rev": p + ".rev"} {
		a, _ := os.ReadFile(files[ext][0])
		b, _ := os.ReadFile(want)
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf(".%s differs from git index-pack's (%d and %d bytes)", ext, len(a), len(b))
		}
	}
	gittest.Git(t, env, repo, "verify-pack", files["idx"][0])
	gittest.Fsck(t, env, repo)
	if got, want := gittest.Objects(t, env, repo), gittest.Objects(t, env, src); got != want {
		t.Errorf("objects differ from the source's: %s", firstDiff(want, got))
	}
}

// TestKeepThinPack keeps a thin pack: the missing bases are appended from
// the repository (loose and packed), and the index lists exactly the ids
// git index-pack --fix-thin lists for the same input.
func TestKeepThinPack(t *testing.T) {
	env := env(t)
	old, thin := thinPacks(t, env)
	for _, packed := range []bool{false, true} {
		var idx [2][]string
		for i, cmd := range []string{"index-pack", "unpack-durable"} {
			repo := gittest.Init(t, env, true, "")
			gittest.GitIn(t, env, repo, old, "unpack-objects", "-q")
			if packed {
				gittest.Git(t, env, repo, "repack", "-adq")
			}
			before := packFiles(t, repo)["idx"]
			args := []string{"--keep"}
			if cmd == "index-pack" {
				args = []string{"--stdin", "--fix-thin"}
			}
			r := unpackInto(t, env, repo, cmd, thin, args...)
			if r.Code != 0 {
				t.Fatalf("%s: exit %d: %s", cmd, r.Code, r.Stderr)
			}
			var fresh string
			for _, f := range packFiles(t, repo)["idx"] {
				if !contains(before, f) {
					fresh = f
				}
			}
			if fresh == "" {
				t.Fatalf("%s wrote no pack", cmd)
			}
			gittest.Git(t, env, repo, "verify-pack", fresh)
			gittest.Fsck(t, env, repo)
			idx[i] = strings.Fields(string(gittest.GitIn(t, env, repo, readFile(t, fresh), "show-index")))
		}
		ids := func(fields []string) []string {
			var out []string
			for i := 1; i < len(fields); i += 3 { // offset, id, (crc)
				out = append(out, fields[i])
			}
			sort.Strings(out)
			return out
		}
		if a, b := ids(idx[0]), ids(idx[1]); strings.Join(a, " ") != strings.Join(b, " ") {
			t.Errorf("packed=%v: index-pack lists %d ids, ours %d", packed, len(a), len(b))
		}
	}
}

// TestUnpackLimit explodes a pack below --unpack-limit and keeps one at or
// above it; a pack that exists already is not written again.
func TestUnpackLimit(t *testing.T) {
	env := env(t)
	src := gittest.Init(t, env, true, "")
	gittest.History(t, env, src, 10, 5)
	data := packOf(t, env, src, "", "--all")
	n := int(data[11]) | int(data[10])<<8
	for _, tc := range []struct {
		limit int
		kept  bool
	}{{n + 1, false}, {n, true}} {
		repo := gittest.Init(t, env, true, "")
		r := unpackInto(t, env, repo, "unpack-durable", data, "--unpack-limit="+strconv.Itoa(tc.limit))
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		if kept := len(packFiles(t, repo)["pack"]) == 1; kept != tc.kept || kept == (looseCount(t, repo) > 0) {
			t.Errorf("limit %d for %d objects: kept %v, %d loose", tc.limit, n, kept, looseCount(t, repo))
		}
		gittest.Fsck(t, env, repo)
		if tc.kept {
			p := packFiles(t, repo)["pack"][0]
			before, _ := os.Stat(p)
			if r := unpackInto(t, env, repo, "unpack-durable", data, "--keep"); r.Code != 0 {
				t.Fatalf("again: exit %d: %s", r.Code, r.Stderr)
			}
			after, _ := os.Stat(p)
			if !os.SameFile(before, after) || len(packFiles(t, repo)["keep"]) != 0 {
				t.Errorf("the existing pack was written again: %v", packFiles(t, repo))
			}
		}
	}
}

// TestKeepStraceOrder checks the kept pack's I-order on the real system
// calls: each file written out before its rename, the .idx renamed last,
// one flush of it after.
func TestKeepStraceOrder(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed: ", err)
	}
	env := env(t)
	old, thin := thinPacks(t, env)
	repo := gittest.Init(t, env, true, "")
	gittest.GitIn(t, env, repo, old, "unpack-objects", "-q")
	calls := straced(t, env, repo, thin, "unpack-durable", "--keep=strace")
	rep, err := crashtest.CheckPackOrder(calls)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Objects != 4 || rep.Writeouts < 4 || !strings.HasSuffix(rep.LastRename, ".idx") {
		t.Errorf("%+v", rep)
	}
	gittest.Fsck(t, env, repo)
}

// TestKeepDeltaBeforeStreamedBase keeps a pack whose REF_DELTA comes before
// its base, a blob big enough to be streamed: the base must be read back
// from the kept pack only once it is all there.
func TestKeepDeltaBeforeStreamedBase(t *testing.T) {
	env := env(t)
	big := make([]byte, 17<<20)
	for i := range big {
		big[i] = byte(i*7 + i>>10)
	}
	id, _ := object.SHA1.Sum(object.Blob, big)
	b := &packtest.Builder{}
	b.RefDelta(id, (&packtest.Delta{}).Copy(0, 1000).Insert([]byte("tail\n")).Bytes(uint64(len(big)), 1005))
	b.Object(object.Blob, big)
	for _, args := range [][]string{{"--keep"}, nil} {
		repo := gittest.Init(t, env, true, "")
		if r := unpackInto(t, env, repo, "unpack-durable", b.Pack(), args...); r.Code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.Code, r.Stderr)
		}
		gittest.Fsck(t, env, repo)
		if n := strings.Count(gittest.Objects(t, env, repo), "\n"); n != 2 {
			t.Errorf("%v: %d objects", args, n)
		}
	}
}
