package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// TestMatchesGitOnLargeHistory unpacks a pack of more than 5,000 objects,
// once with OFS deltas and once with REF deltas, and compares with git.
func TestMatchesGitOnLargeHistory(t *testing.T) {
	env := env(t)
	src := historyRepo(t, env)
	for _, tc := range []struct {
		name string
		args []string
		ofs  bool
	}{{"ofs-delta", []string{"--all", "--delta-base-offset"}, true}, {"ref-delta", []string{"--all"}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			pack := packOf(t, env, src, "", tc.args...)
			ofs, ref := deltas(t, pack, object.SHA1)
			if tc.ofs && (ofs < 1000 || ref != 0) || !tc.ofs && (ref < 1000 || ofs != 0) {
				t.Fatalf("pack has %d OFS and %d REF deltas", ofs, ref)
			}
			trailing := []byte("bytes after the pack\n")
			git, ours := both(t, env, "", append(pack, trailing...), nil, "-q")
			if git.Code != 0 || ours.Code != 0 {
				t.Fatalf("exit git %d ours %d: %s", git.Code, ours.Code, ours.Stderr)
			}
			sameObjects(t, env, git, ours)
			if n := strings.Count(gittest.Objects(t, env, ours.repo), "\n"); n < 5000 {
				t.Errorf("only %d objects", n)
			}
			if !bytes.Equal(ours.Stdout, git.Stdout) || !bytes.Equal(ours.Stdout, trailing) {
				t.Errorf("stdout %q, git's %q", ours.Stdout, git.Stdout)
			}
		})
	}
}

// TestThinPack unpacks a thin pack whose REF_DELTA bases are only in the
// target repository, loose in one run and packed in another.
func TestThinPack(t *testing.T) {
	env := env(t)
	old, thin := thinPacks(t, env)
	if _, ref := deltas(t, thin, object.SHA1); ref == 0 {
		t.Fatal("the thin pack has no REF_DELTA to an outside base")
	}
	for _, packed := range []bool{false, true} {
		setup := func(repo string) {
			gittest.GitIn(t, env, repo, old, "unpack-objects", "-q")
			if packed {
				gittest.Git(t, env, repo, "repack", "-adq")
			}
		}
		git, ours := both(t, env, "", thin, setup)
		if git.Code != 0 || ours.Code != 0 {
			t.Fatalf("packed=%v: exit git %d ours %d: %s", packed, git.Code, ours.Code, ours.Stderr)
		}
		sameObjects(t, env, git, ours)
	}
}

// TestAlternateBases unpacks a thin pack whose bases live in an alternate
// object directory, named by objects/info/alternates or by
// GIT_ALTERNATE_OBJECT_DIRECTORIES.
func TestAlternateBases(t *testing.T) {
	env := env(t)
	src := gittest.Init(t, env, true, "")
	gittest.History(t, env, src, 30, 30)
	alt := gittest.Init(t, env, true, "")
	gittest.GitIn(t, env, alt, packOf(t, env, src, "main~10\n", "--revs"), "unpack-objects", "-q")
	gittest.Git(t, env, alt, "repack", "-adq")
	thin := packOf(t, env, src, "main\n^main~10\n", "--revs", "--thin")
	altObjects := filepath.Join(alt, "objects")
	for _, viaEnv := range []bool{false, true} {
		e := env
		setup := func(repo string) {
			if !viaEnv {
				gittest.WriteFile(t, repo, "objects/info/alternates", altObjects+"\n")
			}
		}
		if viaEnv {
			e = append(append([]string{}, env...), "GIT_ALTERNATE_OBJECT_DIRECTORIES="+altObjects)
		}
		git, ours := both(t, e, "", thin, setup)
		if git.Code != 0 || ours.Code != 0 {
			t.Fatalf("env=%v: exit git %d ours %d: %s", viaEnv, git.Code, ours.Code, ours.Stderr)
		}
		if a, b := gittest.Objects(t, e, git.repo), gittest.Objects(t, e, ours.repo); a != b {
			t.Fatalf("env=%v: objects differ: %s", viaEnv, firstDiff(a, b))
		}
	}
}

// TestDeltaBeforeBase unpacks hand-built packs in which a REF_DELTA comes
// before its base, and a chain of them in reverse order.
func TestDeltaBeforeBase(t *testing.T) {
	env := env(t)
	base := bytes.Repeat([]byte("base object line\n"), 50)
	baseID, _ := object.SHA1.Sum(object.Blob, base)
	d1 := (&packtest.Delta{}).Copy(0, 100).Insert([]byte("one\n")).Bytes(uint64(len(base)), 104)
	r1, _ := pack1Result(base, d1)
	r1ID, _ := object.SHA1.Sum(object.Blob, r1)
	d2 := (&packtest.Delta{}).Copy(0, 50).Insert([]byte("two\n")).Bytes(uint64(len(r1)), 54)
	b := &packtest.Builder{}
	b.RefDelta(r1ID, d2)
	b.RefDelta(baseID, d1)
	b.Object(object.Blob, base)
	git, ours := both(t, env, "", b.Pack(), nil)
	if git.Code != 0 || ours.Code != 0 {
		t.Fatalf("exit git %d ours %d: %s", git.Code, ours.Code, ours.Stderr)
	}
	sameObjects(t, env, git, ours)
	if n := strings.Count(gittest.Objects(t, env, ours.repo), "\n"); n != 3 {
		t.Errorf("%d objects", n)
	}
}

func pack1Result(base, delta []byte) ([]byte, error) {
	return packApply(base, delta)
}

// TestBigBlobsStreamed lowers core.bigFileThreshold so that blobs are
// streamed, and compares with git.
func TestBigBlobsStreamed(t *testing.T) {
	env := env(t)
	src := gittest.Init(t, env, false, "")
	big := strings.Repeat("a large file line\n", 20000)
	gittest.WriteFile(t, src, "big1", big)
	gittest.WriteFile(t, src, "big2", big+"more\n")
	gittest.WriteFile(t, src, "small", "small\n")
	gittest.Git(t, env, src, "add", ".")
	gittest.Git(t, env, src, "commit", "-qm", "big")
	pack := packOf(t, env, src, "", "--all", "--window=0")
	setup := func(repo string) { gittest.Git(t, env, repo, "config", "core.bigFileThreshold", "100k") }
	git, ours := both(t, env, "", pack, setup)
	if git.Code != 0 || ours.Code != 0 {
		t.Fatalf("exit git %d ours %d: %s", git.Code, ours.Code, ours.Stderr)
	}
	sameObjects(t, env, git, ours)
	if tmp, _ := filepath.Glob(filepath.Join(ours.repo, "objects/tmp_obj_*")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestSHA256 unpacks into a SHA-256 repository.
func TestSHA256(t *testing.T) {
	env := env(t)
	src := gittest.Init(t, env, true, "sha256")
	gittest.History(t, env, src, 30, 40)
	pack := packOf(t, env, src, "", "--all", "--delta-base-offset")
	git, ours := both(t, env, "sha256", pack, nil)
	if git.Code != 0 || ours.Code != 0 {
		t.Fatalf("exit git %d ours %d: %s", git.Code, ours.Code, ours.Stderr)
	}
	sameObjects(t, env, git, ours)
}

// TestExistingObjectsAndRepair unpacks into a repository that already holds
// some objects, some of them broken the way a crash leaves them: ours
// repairs them (git unpack-objects would skip them), and counts repairs.
func TestExistingObjectsAndRepair(t *testing.T) {
	env := env(t)
	src := gittest.Init(t, env, true, "")
	gittest.History(t, env, src, 20, 10)
	pack := packOf(t, env, src, "", "--all")
	repo := gittest.Init(t, env, true, "")
	gittest.GitIn(t, env, repo, pack, "unpack-objects", "-q")
	ids := strings.Fields(gittest.Git(t, env, repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"))
	var poisoned []string
	for i, id := range ids[:12] {
		p := filepath.Join(repo, "objects", id[:2], id[2:])
		os.Chmod(p, 0o644)
		raw, _ := os.ReadFile(p)
		switch i % 3 {
		case 0:
			raw = nil
		case 1:
			raw = raw[:len(raw)/2]
		case 2:
			raw[len(raw)-1] ^= 1
		}
		os.WriteFile(p, raw, 0o444)
		poisoned = append(poisoned, id)
	}
	if c := gittest.Exec(t, env, repo, nil, "git", "fsck"); c.Code == 0 {
		t.Fatal("fsck did not notice the poisoned objects")
	}
	r := unpackInto(t, env, repo, "unpack-durable", pack, "--stats")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if !strings.Contains(string(r.Stderr), fmt.Sprintf(`"repaired":%d`, len(poisoned))) {
		t.Errorf("stats: %s", r.Stderr)
	}
	gittest.Fsck(t, env, repo)
}

// TestDryRun checks that -n reads and verifies but writes nothing.
func TestDryRun(t *testing.T) {
	env := env(t)
	src := gittest.Init(t, env, true, "")
	gittest.History(t, env, src, 10, 5)
	pack := packOf(t, env, src, "", "--all")
	git, ours := both(t, env, "", pack, nil, "-n")
	if git.Code != 0 || ours.Code != 0 {
		t.Fatalf("exit git %d ours %d", git.Code, ours.Code)
	}
	if out := gittest.Objects(t, env, ours.repo); out != "" {
		t.Errorf("-n wrote objects: %s", out)
	}
}

// TestPackHeaderOption gives the header on the command line, as fetch-pack
// and receive-pack do, and the rest of the pack on stdin.
func TestPackHeaderOption(t *testing.T) {
	env := env(t)
	src := gittest.Init(t, env, true, "")
	gittest.History(t, env, src, 10, 5)
	pack := packOf(t, env, src, "", "--all")
	count := int(pack[8])<<24 | int(pack[9])<<16 | int(pack[10])<<8 | int(pack[11])
	arg := fmt.Sprintf("--pack_header=2,%d", count)
	git, ours := both(t, env, "", pack[12:], nil, arg)
	if git.Code != 0 || ours.Code != 0 {
		t.Fatalf("exit git %d ours %d: %s", git.Code, ours.Code, ours.Stderr)
	}
	sameObjects(t, env, git, ours)
}

// TestBatchNeedsASoundFilesystem runs without GIT_DURABLE_FORCE_BATCH in a
// temporary directory: the batch path runs only on a filesystem known to
// make it sound (ext4 with a journal and barriers, xfs, tmpfs), and
// elsewhere the fallback runs and says why; with the variable, batch runs.
func TestBatchNeedsASoundFilesystem(t *testing.T) {
	src := gittest.Init(t, realEnv(t), true, "")
	gittest.History(t, realEnv(t), src, 10, 5)
	pack := packOf(t, realEnv(t), src, "", "--all")
	for _, e := range [][]string{realEnv(t), env(t)} {
		repo := gittest.Init(t, e, true, "")
		r := unpackInto(t, e, repo, "unpack-durable", pack, "--stats")
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		var st struct{ Path, Reason string }
		json.Unmarshal(r.Stderr, &st)
		forced := len(e) > 0 && strings.Contains(strings.Join(e, "\n"), "GIT_DURABLE_FORCE_BATCH=1")
		switch {
		case forced && st.Path != "batch":
			t.Errorf("forced: path %q", st.Path)
		case !forced && st.Path == "fallback-fsync" && !strings.Contains(st.Reason, "filesystem"):
			t.Errorf("fallback without a reason: %+v", st)
		case !forced && st.Path != "batch" && st.Path != "fallback-fsync":
			t.Errorf("path %q", st.Path)
		}
		t.Logf("forced=%v: %s (%s)", forced, st.Path, st.Reason)
		gittest.Fsck(t, e, repo)
	}
}
