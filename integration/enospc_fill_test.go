//go:build linux

package integration

import (
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/git-durable/git-durable/internal/blocktest"
	"github.com/git-durable/git-durable/internal/gittest"
)

// TestENOSPCFillsLikeGit explodes a pack of 5,350 objects into a 16 MB
// ext4 too small for it, with git unpack-objects and with ours, under the
// default method and with core.fsync=none: ours must stop no earlier than
// git, but for the objects it had in flight when the space ran out (their
// temporary files are removed). Once with 4 KiB blocks, where the blocks
// run out, and once as mke2fs makes a filesystem this small (1 KiB blocks,
// an inode per 4 KiB), where the inodes run out first and df still shows
// more than half of the blocks free — for git as for ours; ours then says
// so in a hint.
func TestENOSPCFillsLikeGit(t *testing.T) {
	env := realEnv(t)
	pack := packOf(t, env, historyRepo(t, env), "main~100\n", "--revs", "--delta-base-offset")
	const inFlight = 32 // objects between their temporary file and their rename
	for _, mk := range []struct {
		name string
		fsys blocktest.FS
	}{
		{"blocks", blocktest.Ext4(16 << 20)},
		{"inodes", blocktest.FS{Type: "ext4", Size: 16 << 20, Mkfs: []string{"mkfs.ext4", "-q", "-F", "-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0"}, Fsck: []string{"e2fsck", "-f", "-n"}}},
	} {
		for _, config := range []string{"", "core.fsync=none"} {
			t.Run(mk.name+"/"+config, func(t *testing.T) {
				var written [2]int
				for i, cmd := range []string{"unpack-objects", "unpack-durable"} {
					root := blocktest.MountScratch(t, mk.fsys)
					repo := filepath.Join(root, "repo.git")
					gittest.Git(t, env, root, "init", "-q", "--bare", repo)
					var args []string
					if config != "" {
						args = []string{"-c", config}
					}
					c := gittest.Exec(t, env, repo, pack, "git", append(args, cmd)...)
					if c.Code != 128 || !strings.Contains(string(c.Stderr), "No space left on device") {
						t.Fatalf("%s: exit %d, want 128 and ENOSPC (the pack must not fit)\n%s", cmd, c.Code, c.Stderr)
					}
					written[i], _ = strconv.Atoi(strings.Fields(gittest.Git(t, env, repo, "count-objects"))[0])
					var st syscall.Statfs_t
					if err := syscall.Statfs(root, &st); err != nil {
						t.Fatal(err)
					}
					t.Logf("%s: %d objects written; %d of %d blocks and %d of %d inodes free", cmd, written[i], st.Bavail, st.Blocks, st.Ffree, st.Files)
					if mk.name == "inodes" && st.Ffree > inFlight {
						t.Errorf("%s: %d inodes free: the inodes were meant to run out", cmd, st.Ffree)
					}
					hint := "hint: the filesystem of " + filepath.Join(repo, "objects") + " has no inode left (df -i), though "
					if got := strings.Contains(string(c.Stderr), hint); cmd == "unpack-durable" && got != (mk.name == "inodes") {
						t.Errorf("%s: want the hint %q only when the inodes ran out:\n%s", cmd, hint, c.Stderr)
					}
					gittest.Fsck(t, env, repo)
				}
				if git, ours := written[0], written[1]; ours < git-inFlight {
					t.Errorf("ours wrote %d objects where git wrote %d", ours, git)
				}
			})
		}
	}
}
