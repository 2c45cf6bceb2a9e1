//go:build linux

package integration

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/blocktest"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// TestBlockReplayRepair: the repair of a mirror whose pack has a broken
// blob (--verify fetches it again, writes the pack again, removes the
// damaged one) on ext4, ext4 with fast commits and xfs, recorded at the
// block level and replayed at every flush and subsets of the writes after
// it. In every crash image every object the mirror could read before the
// repair reads still (the new pack is durable before the damaged one
// goes), and no final name holds a broken object; in every image from the
// last flush before the runner returned, the repository is as it left it
// and git fsck --strict is clean.
func TestBlockReplayRepair(t *testing.T) {
	env := realEnv(t)
	template := newUpstream(t, env, t.TempDir(), "up.git")
	for _, fsys := range helperFS {
		name := fsys.Type
		if strings.Contains(strings.Join(fsys.Mkfs, " "), "fast_commit") {
			name = "ext4-fast_commit"
		}
		t.Run(name, func(t *testing.T) {
			up := filepath.Join(t.TempDir(), "up.git")
			gittest.Git(t, env, "", "clone", "-q", "--bare", "--no-local", template, up)
			s := blocktest.Start(t, fsys)
			m := filepath.Join(s.Root, "m.git")
			gittest.Git(t, env, s.Root, "clone", "-q", "--mirror", "-c", "fetch.unpackLimit=1", "durable::file://"+up, m)
			blob, off, path := packedBlob(t, env, m)
			readable := readableObjects(t, env, m, blob)
			flipByte(t, path, off+4)
			syncfs(t, s.Root)
			s.Rec.Rebase()
			s.Rec.Mark("start")
			c := verifier(t, env, s.Root)
			s.Rec.Mark("done")
			if l := runnerLine(t, c, m); c.Code != 0 || !strings.Contains(l, "mended: ") {
				t.Fatalf("exit %d, %q\n%s", c.Code, l, c.Stderr)
			}
			want, intact, files := repositoryState(t, s.Root, m)
			if err := s.Stop(); err != nil {
				t.Fatal(err)
			}
			base := blocktest.Scenario{
				FS: fsys, Base: s.Rec.Base(), Log: s.Rec.Log(), ObjectDir: "m.git/objects", Format: object.SHA1,
				Damaged: []string{blob.String()}, Points: blocktest.PointOptions{Subsets: 2, Seed: 13},
			}
			durable := base
			durable.Want, durable.Intact, durable.Files, durable.Done, durable.Check = want, intact, files, "done", fsckAt(env, "m.git")
			// Every image counts as durable from the mark before the repair:
			// each must read what the mirror read before it.
			asBefore := base
			asBefore.Done, asBefore.Check = "start", readsAll(env, "m.git", readable)
			for what, sc := range map[string]*blocktest.Scenario{"durable": &durable, "as readable as before": &asBefore} {
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

// readableObjects lists the objects of the repository dir that git reads,
// but the one about to be broken.
func readableObjects(t *testing.T, env []string, dir string, but object.ID) []string {
	t.Helper()
	var ids []string
	for _, l := range strings.Split(gittest.Git(t, env, dir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"), "\n") {
		if l != "" && l != but.String() {
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
