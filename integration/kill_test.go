//go:build linux

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/blocktest"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// killPoint is where a kill lands: after feed bytes of the pack were
// written to the command's stdin, and then after wait.
type killPoint struct {
	feed int
	wait time.Duration
}

// killPoints returns kills at every twelfth of the pack's bytes (the
// command cannot have finished: the trailer has not arrived) and, with the
// whole pack given, at fractions of tail, the time an uncut run takes from
// its last input byte to its exit, so that kills also land among the last
// writes, renames and the flush.
func killPoints(size int, tail time.Duration) []killPoint {
	var pts []killPoint
	for i := 1; i < 12; i++ {
		pts = append(pts, killPoint{feed: size * i / 12})
	}
	for i := 0; i < 4; i++ {
		pts = append(pts, killPoint{feed: size, wait: tail * time.Duration(i) / 4})
	}
	return pts
}

// feedUnpack runs git-unpack-durable in repo and writes the first p.feed
// bytes of pack to its stdin. With kill it then waits p.wait and sends
// SIGKILL; it reports whether the command had exited by itself (with
// status 0), and how long it ran after its input was written.
func feedUnpack(t *testing.T, env []string, repo string, pack []byte, p killPoint, kill bool) (exited bool, tail time.Duration) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "git-unpack-durable"))
	cmd.Dir, cmd.Env = repo, env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write(pack[:p.feed]) // fails only when the command has exited
	fed := time.Now()
	if kill {
		time.Sleep(p.wait)
		cmd.Process.Kill()
	}
	stdin.Close()
	err = cmd.Wait()
	return err == nil, time.Since(fed)
}

// killRoot returns where the kill test makes its repositories: a
// loop-mounted ext4 as root (fast writeouts, real ext4), else the
// temporary directory.
func killRoot(t *testing.T) string {
	if os.Geteuid() != 0 {
		t.Log("not root: the repositories go to the temporary directory's filesystem")
		return t.TempDir()
	}
	return blocktest.MountScratch(t, blocktest.Ext4(128<<20))
}

// breakTwo empties one loose object and flips a byte of another, as a
// crash under plain git can leave them; it returns their ids.
func breakTwo(t *testing.T, objdir string, good map[string]bool) []string {
	t.Helper()
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range good {
			if !yield(id) {
				return
			}
		}
	})[:2]
	for i, id := range ids {
		p := filepath.Join(objdir, id[:2], id[2:])
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			b = nil
		} else {
			b[len(b)/2] ^= 0x55
		}
		os.Chmod(p, 0o644)
		if err := os.WriteFile(p, b, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// TestKill kills git-unpack-durable with SIGKILL at many points of a large
// unpack. After each kill the repository holds only intact objects under
// final names and git fsck is clean; then two of its objects are broken by
// hand, and running the unpack again completes it, repairs both, and
// leaves a repository equal to stock git's.
func TestKill(t *testing.T) {
	env := env(t)
	src := historyRepo(t, env)
	pack := packOf(t, env, src, "main~400\n", "--revs", "--delta-base-offset")
	want := packIDs(t, env, pack)

	root := killRoot(t)
	uncut := filepath.Join(root, "uncut.git")
	gittest.Git(t, env, root, "init", "-q", "--bare", "-b", "main", uncut)
	ok, tail := feedUnpack(t, env, uncut, pack, killPoint{feed: len(pack)}, false)
	if !ok {
		t.Fatal("the uncut run failed")
	}
	os.RemoveAll(uncut)
	var summary []string
	for i, p := range killPoints(len(pack), tail) {
		repo := filepath.Join(root, fmt.Sprintf("repo%d.git", i))
		gittest.Git(t, env, root, "init", "-q", "--bare", "-b", "main", repo)
		objdir := filepath.Join(repo, "objects")
		exited, _ := feedUnpack(t, env, repo, pack, p, true)
		objs, err := blocktest.CheckObjects(objdir, object.SHA1)
		if err != nil {
			t.Fatal(err)
		}
		if len(objs.Broken) > 0 {
			t.Fatalf("kill at %+v: broken objects under final names: %v", p, objs.Broken)
		}
		gittest.Fsck(t, env, repo)
		summary = append(summary, fmt.Sprintf("%d%%+%v: %d objects, %d tmp, exited %v",
			p.feed*100/len(pack), p.wait.Round(time.Millisecond), len(objs.Good), objs.Temps, exited))

		var broken []string
		if len(objs.Good) >= 2 {
			broken = breakTwo(t, objdir, objs.Good)
		}
		c := unpackInto(t, env, repo, "unpack-durable", pack, "--stats")
		if c.Code != 0 {
			t.Fatalf("re-run after kill at %+v: exit %d\n%s", p, c.Code, c.Stderr)
		}
		if st := statsLine(t, c.Stderr); st["repaired"] != float64(len(broken)) {
			t.Errorf("re-run after kill at %+v: repaired %v, want %d (%v)", p, st["repaired"], len(broken), broken)
		}
		if got := strings.Fields(gittest.Git(t, env, repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")); !slices.Equal(got, want) {
			t.Fatalf("re-run after kill at %+v: %d objects, want %d", p, len(got), len(want))
		}
		gittest.Fsck(t, env, repo)
		if err := os.RemoveAll(repo); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d objects, uncut run %v after its input; kills: %s", len(want), tail.Round(time.Millisecond), strings.Join(summary, "; "))
}
