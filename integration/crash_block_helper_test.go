//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/blocktest"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// helperCase is one command of git through the helper, replayed.
type helperCase struct {
	name string
	// repo is the repository's git directory, relative to the filesystem's
	// root.
	repo string
	// setup prepares the filesystem at root before recording begins
	// (a mirror to fetch into, an object a crash broke) and returns the
	// objects it broke; up is the upstream, outside the recorded
	// filesystem.
	setup func(t *testing.T, env []string, root, up string) []string
	// run is the command, run in root.
	run func(t *testing.T, env []string, root, up string) *gittest.Cmd
}

// recordHelper runs c on a recorded fsys and returns the scenario of its
// replay: from the command's start (the setup is the base), every object
// under a final name intact; every pack file whole or absent; and in every
// image from the last flush before git returned, every loose object and
// pack file, the same HEAD, config, packed-refs, shallow and loose refs as
// git left, and git fsck clean.
func recordHelper(t *testing.T, env []string, fsys blocktest.FS, up string, c helperCase) *blocktest.Scenario {
	t.Helper()
	s := blocktest.Start(t, fsys)
	var damaged []string
	if c.setup != nil {
		damaged = c.setup(t, env, s.Root, up)
	}
	syncfs(t, s.Root)
	s.Rec.Rebase()
	s.Rec.Mark("start")
	cmd := c.run(t, env, s.Root, up)
	s.Rec.Mark("done")
	mustRun(t, cmd, c.name)
	gitDir := filepath.Join(s.Root, c.repo)
	want, intact, files := repositoryState(t, s.Root, gitDir)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	return &blocktest.Scenario{
		FS: fsys, Base: s.Rec.Base(), Log: s.Rec.Log(),
		ObjectDir: filepath.Join(c.repo, "objects"), Format: object.SHA1, Want: want, Done: "done",
		Damaged: damaged, Intact: intact, Files: files, Check: fsckAt(env, c.repo),
		Points: blocktest.PointOptions{Subsets: 2, Seed: 11},
	}
}

// helperCases are the commands of git through the helper whose crash
// images are replayed: a mirror clone kept as a pack, a partial clone whose
// checkout fetches the blobs it lacks, a shallow mirror clone, a mirror's
// fetch with --prune (new refs, a tag, a ref deleted from packed-refs), and
// fetches that heal a loose object a crash emptied, with the fetched pack
// exploded and kept.
func helperCases() []helperCase {
	mirror := func(t *testing.T, env []string, root, up string) []string {
		gittest.Git(t, env, up, "branch", "-f", "doomed", "main~3")
		// Loose objects, as fetches of fewer than fetch.unpackLimit
		// objects leave them.
		gittest.Git(t, env, root, "-c", "fetch.unpackLimit=100000", "clone", "-q", "--mirror", "durable::file://"+up, "m.git")
		gittest.Git(t, env, up, "branch", "-D", "doomed")
		advance(t, env, up, 2, "v9")
		return nil
	}
	fetch := func(config ...string) func(t *testing.T, env []string, root, up string) *gittest.Cmd {
		return func(t *testing.T, env []string, root, up string) *gittest.Cmd {
			return gittest.Exec(t, env, filepath.Join(root, "m.git"), nil, "git", append(config, "fetch", "--prune")...)
		}
	}
	clone := func(args ...string) func(t *testing.T, env []string, root, up string) *gittest.Cmd {
		return func(t *testing.T, env []string, root, up string) *gittest.Cmd {
			args := append(args[:len(args):len(args)], "durable::file://"+up)
			return gittest.Exec(t, env, root, nil, "git", append(args, "c")...)
		}
	}
	// heal empties the blob that the thin pack of the next fetch uses as a
	// base, as a crash of a writer that did not sync leaves it.
	heal := func(t *testing.T, env []string, root, up string) []string {
		mirror(t, env, root, up)
		m := filepath.Join(root, "m.git")
		old := strings.TrimSpace(gittest.Git(t, env, m, "rev-parse", "main"))
		for _, id := range thinBases(t, env, up, filepath.Join(m, "objects"), old) {
			if strings.TrimSpace(gittest.Git(t, env, m, "cat-file", "-t", id)) == "blob" {
				if err := os.Truncate(filepath.Join(m, "objects", id[:2], id[2:]), 0); err != nil {
					t.Fatal(err)
				}
				return []string{id}
			}
		}
		t.Fatal("the thin pack has no blob for a base")
		return nil
	}
	return []helperCase{
		{name: "mirror clone, kept", repo: "c", run: clone("-c", "fetch.unpackLimit=1", "clone", "-q", "--mirror")},
		{name: "partial clone", repo: "c", run: func(t *testing.T, env []string, root, up string) *gittest.Cmd {
			// A bare clone, whose blobs git fetches when it first reads
			// them: a lazy fetch through the helper. (A checkout would
			// write the index and work tree after the helper, which git
			// does not sync and the helper cannot reach.)
			c := clone("clone", "-q", "--bare", "--filter=blob:none")(t, env, root, up)
			mustRun(t, c, "partial clone")
			return gittest.Exec(t, env, filepath.Join(root, "c"), nil, "git", "cat-file", "-p", "main:dir0/sub0/file0.txt")
		}},
		{name: "shallow clone", repo: "c", run: clone("clone", "-q", "--mirror", "--depth=3")},
		{name: "fetch", repo: "m.git", setup: mirror, run: fetch()},
		{name: "heal", repo: "m.git", setup: heal, run: fetch()},
		{name: "heal, kept", repo: "m.git", setup: heal, run: fetch("-c", "fetch.unpackLimit=1")},
	}
}

// TestBlockReplayHelper is the ground truth for what git and the helper
// leave in the repository: every command of helperCases on ext4, ext4
// with fast commits and xfs, with the configuration the README
// recommends (none beyond durable::), recorded at the block level and
// replayed at every device flush and subsets of the writes after it. Every
// crash image must mount and be clean for the filesystem's checker; hold
// only intact objects and whole pack files under final names; and, from
// the last flush before git returned, every object and pack file, HEAD,
// config, packed-refs, shallow and refs as git left them, and pass git
// fsck.
func TestBlockReplayHelper(t *testing.T) {
	env := realEnv(t)
	template := newUpstream(t, env, t.TempDir(), "up.git")
	for _, fsys := range helperFS {
		name := fsys.Type
		if strings.Contains(strings.Join(fsys.Mkfs, " "), "fast_commit") {
			name = "ext4-fast_commit"
		}
		t.Run(name, func(t *testing.T) {
			for _, c := range helperCases() {
				t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
					up := filepath.Join(t.TempDir(), "up.git")
					gittest.Git(t, env, "", "clone", "-q", "--bare", "--no-local", template, up)
					gittest.Git(t, env, up, "config", "uploadpack.allowFilter", "true")
					s := recordHelper(t, env, fsys, up, c)
					v, err := s.Run()
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("%s, %s: %d loose objects, %d pack files: %s", name, c.name, len(s.Want), len(s.Intact), v)
					if !v.OK() || v.Durable == 0 {
						t.Errorf("%s, %s: %s", name, c.name, v)
					}
				})
			}
		})
	}
}
