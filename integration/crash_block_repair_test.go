//go:build linux

package integration

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/blocktest"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// repairCase is a damage a repair puts right, as the block replays record
// it: how the mirror m (cloned from up, under the filesystem's root) is
// damaged, and what the runner is asked to do.
type repairCase struct {
	name string
	// damage damages m and returns the objects broken (whose final names
	// may hold anything until the repair is durable).
	damage func(t *testing.T, env []string, root, m, up string) (broken []string)
	// run runs the runner on root and reports whether it ran to its end
	// (a run stopped midway has no state of its own to hold).
	run func(t *testing.T, env []string, root, m string) (finished bool)
	// away says that the objects are away (an alternates store not
	// mounted): none reads before, and git fsck cannot check any.
	away bool
}

// verifies is a repairCase's run: --verify, which must end "ok" and say
// what it mended (in place or by a reclone).
func verifies(t *testing.T, env []string, root, m string) bool {
	return verifiesSaying(t, env, root, m, "")
}

// verifiesSaying is verifies whose line must also say what.
func verifiesSaying(t *testing.T, env []string, root, m, what string) bool {
	c := verifier(t, env, root)
	l := runnerLine(t, c, m)
	if c.Code != 0 || !strings.Contains(l, "mended in") && !strings.Contains(l, "recloned in") || !strings.Contains(l, what) {
		t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
	}
	return true
}

var repairCases = []repairCase{
	{"a blob", func(t *testing.T, env []string, root, m, up string) []string {
		blob, off, path := packedBlob(t, env, m)
		flipByte(t, path, off+4)
		return []string{blob.String()}
	}, verifies, false},
	{"a lost tip", func(t *testing.T, env []string, root, m, up string) []string {
		// A tip commit a crash lost before it was synced: --verify fetches
		// it again by id, and never touches the ref.
		advance(t, env, up, 1, "")
		gittest.Git(t, env, m, "-c", "fetch.unpackLimit=100", "remote", "update", "--prune")
		tip := strings.TrimSpace(gittest.Git(t, env, m, "rev-parse", "main"))
		if err := os.Remove(filepath.Join(m, "objects", tip[:2], tip[2:])); err != nil {
			t.Fatal(err)
		}
		return []string{tip}
	}, verifies, false},
	{"an index's checksum", func(t *testing.T, env []string, root, m, up string) []string {
		// The index made again from the pack beside the one git reads.
		idx, path := packIndex(t, m)
		flipByte(t, strings.TrimSuffix(path, ".pack")+".idx", idxCRC(idx.Count(), idx.Count()/2))
		return nil
	}, verifies, false},
	{"a pack cut to three fifths", func(t *testing.T, env []string, root, m, up string) []string {
		// Everything fetched again into a fresh clone beside the mirror,
		// swapped in once durable, the old one set aside whole.
		idx, path := packIndex(t, m)
		return cutShort(t, idx, path, func(n int64) int64 { return n * 6 / 10 })
	}, func(t *testing.T, env []string, root, m string) bool {
		return verifiesSaying(t, env, root, m, "recloned in")
	}, false},
	{"a whole fetch in place", func(t *testing.T, env []string, root, m, up string) []string {
		// The pack cut as above, and a second pack holding a broken copy
		// of a blob beside an object only the mirror has: a reclone would
		// lose that one, so everything is fetched again into the mirror
		// itself, durable before the cut pack is set aside, and the
		// second pack is written again with the object kept.
		idx, path := packIndex(t, m)
		blob, _, _ := packedBlob(t, env, m)
		own := strings.TrimSpace(string(gittest.GitIn(t, env, m, []byte("only the mirror has it\n"), "hash-object", "-w", "--stdin")))
		sum := strings.TrimSpace(string(gittest.GitIn(t, env, m, []byte(blob.String()+"\n"+own+"\n"), "pack-objects", "-q", "objects/pack/pack")))
		os.Remove(filepath.Join(m, "objects", own[:2], own[2:]))
		second := filepath.Join(m, "objects", "pack", "pack-"+sum)
		sidx, err := pack.ParseIndex(readFile(t, second+".idx"), object.SHA1)
		if err != nil {
			t.Fatal(err)
		}
		off, ok := sidx.FindOffset(blob)
		if !ok {
			t.Fatalf("%s is not in %s", blob, second)
		}
		flipByte(t, second+".pack", off+4)
		return cutShort(t, idx, path, func(n int64) int64 { return n * 6 / 10 })
	}, func(t *testing.T, env []string, root, m string) bool {
		return verifiesSaying(t, env, root, m, "in place, not swapped")
	}, false},
	{"a reclone swap", func(t *testing.T, env []string, root, m, up string) []string {
		// The pack cut as above, and an object only the mirror has: a
		// fresh clone built beside it, the object carried over, the two
		// exchanged, the old one set aside whole.
		idx, path := packIndex(t, m)
		lost := cutShort(t, idx, path, func(int64) int64 { return 4096 })
		gittest.GitIn(t, env, m, []byte("only the mirror has it\n"), "hash-object", "-w", "--stdin")
		gittest.Git(t, env, m, "config", "mirror.note", "carried over")
		return lost
	}, func(t *testing.T, env []string, root, m string) bool {
		c := verifier(t, env, "--reclone", root)
		if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, "recloned") {
			t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
		}
		if got := strings.TrimSpace(gittest.Git(t, env, m, "config", "mirror.note")); got != "carried over" {
			t.Fatalf("the configuration was not carried over: %q", got)
		}
		return true
	}, false},
	{"a stopped mend", func(t *testing.T, env []string, root, m, up string) []string {
		blob, off, path := packedBlob(t, env, m)
		flipByte(t, path, off+4)
		idx, _ := packIndex(t, m)
		flipByte(t, strings.TrimSuffix(path, ".pack")+".idx", idxCRC(idx.Count(), 0))
		return []string{blob.String()}
	}, func(t *testing.T, env []string, root, m string) bool {
		// SIGTERM once the verification has read the pack: amid the mend.
		cmd := exec.Command(filepath.Join(binDir, "git-remote-durable"), "--verify", root)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		return false
	}, false},
	{"an alternates store away", func(t *testing.T, env []string, root, m, up string) []string {
		// A borrower whose store is not mounted: the update touches
		// nothing.
		store := filepath.Join(root, "store.git")
		gittest.Git(t, env, root, "clone", "-q", "--mirror", "file://"+up, store)
		gittest.WriteFile(t, m, "objects/info/alternates", filepath.Join(store, "objects")+"\n")
		gittest.Git(t, env, m, "repack", "-adlq")
		advance(t, env, up, 1, "")
		if err := os.Rename(store, store+".away"); err != nil {
			t.Fatal(err)
		}
		return nil
	}, func(t *testing.T, env []string, root, m string) bool {
		c := runner(t, env, root)
		if l := runnerLine(t, c, m); c.Code != 1 || !strings.Contains(l, "does not exist") {
			t.Fatalf("exit %d, %q", c.Code, l)
		}
		return true
	}, true},
}

// TestBlockReplayRepair: each repair of repairCases on ext4, ext4 with
// fast commits and xfs, recorded at the block level and replayed at every
// flush and subsets of the writes after it. In every crash image every
// object the mirror could read before the repair reads still (a
// replacement is durable before anything it replaces goes), every ref is
// in place with its value, and no final name holds a broken object; in
// every image from the last flush before a repair that ran to its end
// returned, the repository is as it left it and git fsck --strict is
// clean.
func TestBlockReplayRepair(t *testing.T) {
	env := realEnv(t)
	template := newUpstream(t, env, t.TempDir(), "up.git")
	for _, rc := range repairCases {
		for _, fsys := range helperFS {
			name := fsys.Type
			if strings.Contains(strings.Join(fsys.Mkfs, " "), "fast_commit") {
				name = "ext4-fast_commit"
			}
			t.Run(rc.name+"/"+name, func(t *testing.T) {
				up := filepath.Join(t.TempDir(), "up.git")
				gittest.Git(t, env, "", "clone", "-q", "--bare", "--no-local", template, up)
				s := blocktest.Start(t, fsys)
				root := filepath.Join(s.Root, "tree")
				m := filepath.Join(root, "m.git")
				gittest.Git(t, env, s.Root, "clone", "-q", "--mirror", "-c", "fetch.unpackLimit=1", "durable::file://"+up, m)
				broken := rc.damage(t, env, root, m, up)
				var readable []string
				if !rc.away {
					readable = readableObjects(t, env, m, broken)
				}
				refsBefore := refs(t, env, m)
				_, packsBefore, _ := repositoryState(t, s.Root, m)
				syncfs(t, s.Root)
				s.Rec.Rebase()
				s.Rec.Mark("start")
				finished := rc.run(t, env, root, m)
				s.Rec.Mark("done")
				want, intact, files := repositoryState(t, s.Root, m)
				for p, b := range intact {
					// A file replaced under its name (an index made again)
					// holds the one before until the replacement: git fsck
					// of the durable images checks the new one.
					if old, ok := packsBefore[p]; ok && !bytes.Equal(old, b) {
						delete(intact, p)
					}
				}
				if err := s.Stop(); err != nil {
					t.Fatal(err)
				}
				base := blocktest.Scenario{
					FS: fsys, Base: s.Rec.Base(), Log: s.Rec.Log(), ObjectDir: "tree/m.git/objects", Format: object.SHA1,
					Damaged: broken, Points: blocktest.PointOptions{Subsets: 2, Seed: 13},
				}
				scenarios := map[string]*blocktest.Scenario{}
				if finished {
					durable := base
					durable.Want, durable.Intact, durable.Files, durable.Done, durable.Check = want, intact, files, "done", fsckAt(env, "tree/m.git")
					if rc.away {
						durable.Check = refsAt(env, "tree/m.git", refsBefore)
					}
					scenarios["durable"] = &durable
				}
				// Every image counts as durable from the mark before the
				// repair: each must read what the mirror read before it,
				// with every ref as it was.
				asBefore := base
				asBefore.Done, asBefore.Check = "start", allOf(readsAll(env, "tree/m.git", readable), refsAt(env, "tree/m.git", refsBefore))
				scenarios["as readable as before"] = &asBefore
				for what, sc := range scenarios {
					v, err := sc.Run()
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("%s, %s: %s", name, what, v)
					if !v.OK() || v.Durable == 0 {
						t.Errorf("%s, %s: %s", name, what, v)
					}
				}
			})
		}
	}
}

// readableObjects lists the objects of the repository dir that git reads,
// but those broken.
func readableObjects(t *testing.T, env []string, dir string, broken []string) []string {
	t.Helper()
	var ids []string
	for _, l := range strings.Split(gittest.Git(t, env, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"), "\n") {
		if l != "" && !contains(broken, l) {
			ids = append(ids, l)
		}
	}
	return ids
}

// readsAll returns the check of a crash image: git reads every object of
// ids in the repository at repo below the image's root.
func readsAll(env []string, repo string, ids []string) func(root string) error {
	in := []byte(strings.Join(ids, "\n") + "\n")
	return func(root string) error {
		if len(ids) == 0 {
			return nil
		}
		cmd := exec.Command("git", "--git-dir="+filepath.Join(root, repo), "cat-file", "--batch")
		cmd.Env, cmd.Stdin = env, bytes.NewReader(in)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil || bytes.Contains(out, []byte(" missing\n")) {
			return fmt.Errorf("git cat-file --batch: %v %s", err, errb.String())
		}
		return nil
	}
}

// refsAt returns the check of a crash image: the refs of the repository at
// repo below the image's root are want (as refs lists them).
func refsAt(env []string, repo string, want string) func(root string) error {
	return func(root string) error {
		dir := filepath.Join(root, repo)
		out, err := exec.Command("git", "--git-dir="+dir, "for-each-ref", "--format=%(objectname) %(refname)").Output()
		if err != nil {
			return fmt.Errorf("git for-each-ref: %v", err)
		}
		head, _ := exec.Command("git", "--git-dir="+dir, "symbolic-ref", "-q", "HEAD").Output()
		if got := string(out) + "HEAD -> " + string(head); got != want {
			return fmt.Errorf("refs\n%s\nwant\n%s", got, want)
		}
		return nil
	}
}

// allOf is the check that runs a, then b.
func allOf(a, b func(root string) error) func(root string) error {
	return func(root string) error { return errors.Join(a(root), b(root)) }
}
