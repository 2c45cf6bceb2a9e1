//go:build linux

package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/blocktest"
	"github.com/git-durable/git-durable/internal/gittest"
)

// TestFilesystemNameAsNobody runs git-unpack-durable as the user nobody,
// who cannot read the device, on the ext4 configurations the policy tells
// apart, and checks which filesystem it chose by and which path ran: the
// kernel's EXT4_IOC_GET_TUNE_SB_PARAM tells nobody whether fast commits
// are on, as the superblock tells root. On what looks like a kernel
// before 6.18 (the ioctl refused, asUserEnv) nobody cannot know it for a
// plain ext4, whose options name no fc_debug_force: fast commits are
// then unknown and every flush commits by directory. On a kernel with
// CONFIG_EXT4_DEBUG the options still show fc_debug_force where fast
// commits are on. Every object must be written in each run.
func TestFilesystemNameAsNobody(t *testing.T) {
	env := realEnv(t)
	pack := smallPack(t, env)
	n := float64(len(packIDs(t, env, pack)))
	tests := []struct {
		opts       string
		args       []string
		nobody     string // the filesystem nobody is told
		old        string // … on a kernel before 6.18; "" where it depends on CONFIG_EXT4_DEBUG
		path       string
		oldFlushes float64 // hardware flushes of the old-kernel run; 0: not checked
	}{
		{"", nil, "ext4", "ext4, fast_commit unknown", "batch", 1},
		{"", []string{"-O", "fast_commit"}, "ext4 with fast_commit", "", "batch", 1},
		{"data=writeback,journal_async_commit", nil, "ext4 with journal_async_commit",
			"ext4 with journal_async_commit, fast_commit unknown", "fallback-fsync", 0},
		{"data=writeback,journal_async_commit", []string{"-O", "fast_commit"}, "ext4 with journal_async_commit and fast_commit", "", "fallback-fsync", 0},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append(tt.args, tt.opts), " "), func(t *testing.T) {
			root := blocktest.MountScratch(t, ext4With(tt.opts, tt.args...))
			for _, as := range []string{"nobody", "nobody-old-kernel"} {
				repo := filepath.Join(root, as+".git")
				gittest.Git(t, env, root, "init", "-q", "--bare", "-b", "main", repo)
				name, args, cmdEnv := asUser(t, as, env, nil, []string{repo}, "git", "unpack-durable", "--stats")
				c := gittest.Exec(t, cmdEnv, repo, pack, name, args...)
				if c.Code != 0 {
					t.Fatalf("%s: exit %d\n%s", as, c.Code, c.Stderr)
				}
				st := statsLine(t, c.Stderr)
				want := tt.nobody
				if as == "nobody-old-kernel" {
					want = tt.old
				}
				fs, _ := st["filesystem"].(string)
				switch {
				case want == "" && fs != tt.nobody && !strings.HasSuffix(fs, ", fast_commit unknown"):
					t.Errorf("%s: filesystem %q, want %q or fast commits unknown", as, fs, tt.nobody)
				case want != "" && fs != want:
					t.Errorf("%s: filesystem %q, want %q", as, fs, want)
				}
				if st["path"] != tt.path || st["written"] != n {
					t.Errorf("%s: path %v, written %v of %v; want %s", as, st["path"], st["written"], n, tt.path)
				}
				if as == "nobody-old-kernel" && tt.oldFlushes > 0 && st["hardware-flush"] != tt.oldFlushes {
					t.Errorf("%s: %v hardware flushes, want %v", as, st["hardware-flush"], tt.oldFlushes)
				}
				t.Logf("%s: %v", as, st)
			}
		})
	}
}

// TestBlockReplayFastCommitUnknown replays the path of a user who cannot
// tell whether a plain ext4 (data=ordered) takes fast commits — nobody,
// on what looks like a kernel before 6.18 (asUserEnv) — where every flush
// is a directory's fsync: batch (its one flush syncs the directory of the
// object renamed last) and the fsync method (a writeout and a directory
// fsync per object). The verdict is TestBlockReplayBatch's.
func TestBlockReplayFastCommitUnknown(t *testing.T) {
	fsys := blocktest.Ext4(32 << 20)
	t.Run("batch", func(t *testing.T) {
		env := realEnv(t)
		r := recordUnpackAs(t, "nobody-old-kernel", env, fsys, blockPack(t, env))
		v := replay(t, "fast_commit unknown, batch", r)
		if !v.OK() || v.Durable == 0 {
			t.Errorf("fast_commit unknown, batch: %s", v)
		}
		if r.stats["path"] != "batch" || r.stats["filesystem"] != "ext4, fast_commit unknown" || r.stats["hardware-flush"] != 1.0 {
			t.Errorf("fast_commit unknown, batch: stats %v", r.stats)
		}
	})
	t.Run("fsync", func(t *testing.T) {
		env := realEnv(t)
		r := recordUnpackAs(t, "nobody-old-kernel", env, fsys, smallPack(t, env), fsyncConfig...)
		r.scenario.Points = sampled
		v := replay(t, "fast_commit unknown, fsync", r)
		if !v.OK() || v.Durable == 0 {
			t.Errorf("fast_commit unknown, fsync: %s", v)
		}
		if r.stats["path"] != "fsync" || r.stats["filesystem"] != "ext4, fast_commit unknown" {
			t.Errorf("fast_commit unknown, fsync: stats %v", r.stats)
		}
	})
}
