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

// TestENOSPC unpacks into a small loop-mounted ext4 that runs out of space
// mid-unpack, once of blocks and once of inodes: the command must print
// one clear fatal line, exit non-zero, leave no incomplete object under a
// final name, and leave a repository that git fsck finds clean. When
// space is freed, running it again completes the unpack.
func TestENOSPC(t *testing.T) {
	env := env(t)
	small, big := blockPack(t, env), bigBlobPack(t, env, 48, 256<<10)
	for _, tc := range []struct {
		name   string
		pack   []byte
		size   int64
		mkfs   []string
		filler int64 // bytes written to a file before the unpack
	}{
		// Many small objects: the space runs out while shard directories
		// are still being created.
		{"blocks", small, 16 << 20, []string{"-N", "4096"}, 10 << 20},
		// Incompressible 256 KiB blobs: it runs out within an object's
		// data, or at the next shard directory.
		{"data", big, 32 << 20, nil, 22 << 20},
		{"inodes", small, 16 << 20, []string{"-N", "600"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pack := tc.pack
			want := packIDs(t, env, pack)
			fsys := blocktest.Ext4(tc.size)
			fsys.Mkfs = append(fsys.Mkfs, tc.mkfs...)
			root := blocktest.MountScratch(t, fsys)
			filler := filepath.Join(root, "filler")
			if err := os.WriteFile(filler, make([]byte, tc.filler), 0o600); err != nil {
				t.Fatal(err)
			}
			repo := filepath.Join(root, "repo.git")
			gittest.Git(t, env, root, "init", "-q", "--bare", "-b", "main", repo)

			c := gittest.Exec(t, env, repo, pack, "git", "unpack-durable")
			// git's words: "fatal: unable to write loose object file: No
			// space left on device", or "error: unable to create temporary
			// file: No space left on device" and "fatal: failed to write
			// object".
			// A "hint:" line may come first: the inodes ran out, not the
			// blocks (see TestENOSPCFillsLikeGit).
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(string(c.Stderr)), "\n") {
				if !strings.HasPrefix(l, "hint: ") {
					lines = append(lines, l)
				}
			}
			last := lines[len(lines)-1]
			if c.Code != 128 || len(lines) > 2 || !strings.HasPrefix(last, "fatal: ") || len(lines) == 2 && !strings.HasPrefix(lines[0], "error: ") ||
				!strings.Contains(string(c.Stderr), "No space left on device") {
				t.Fatalf("full filesystem: exit %d, want 128 and one fatal line naming ENOSPC:\n%s", c.Code, c.Stderr)
			}
			objs, err := blocktest.CheckObjects(filepath.Join(repo, "objects"), object.SHA1)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs.Broken) > 0 || len(objs.Good) == 0 || len(objs.Good) == len(want) {
				t.Fatalf("after ENOSPC: %d intact objects of %d, broken: %v", len(objs.Good), len(want), objs.Broken)
			}
			gittest.Fsck(t, env, repo)
			t.Logf("%s: exit %d, %q; %d of %d objects written, all intact, %d temporary files left; fsck clean",
				tc.name, c.Code, strings.TrimSpace(string(c.Stderr)), len(objs.Good), len(want), objs.Temps)

			if tc.filler == 0 {
				return
			}
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			c = gittest.Exec(t, env, repo, pack, "git", "unpack-durable")
			if c.Code != 0 {
				t.Fatalf("again with space: exit %d\n%s", c.Code, c.Stderr)
			}
			if got := strings.Fields(gittest.Git(t, env, repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")); len(got) != len(want) {
				t.Fatalf("again with space: %d objects, want %d", len(got), len(want))
			}
			gittest.Fsck(t, env, repo)
		})
	}
}
