//go:build linux

package integration

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/blocktest"
)

// blockFS are the journaled filesystems on which batch must be sound.
var blockFS = []blocktest.FS{blocktest.Ext4(32 << 20), blocktest.XFS(300 << 20)}

// TestBlockReplayBatch is the ground truth for the batch scheme on ext4
// and xfs: every crash image of a real unpack — at every device flush and
// with random subsets of the writes that follow it — holds only intact
// objects under final names (I-b) and is clean for the filesystem's own
// checker, and every image from the flush before the command returned on
// holds all of them (I-a).
func TestBlockReplayBatch(t *testing.T) {
	for _, fsys := range blockFS {
		t.Run(fsys.Type, func(t *testing.T) {
			env := realEnv(t)
			r := recordUnpack(t, env, fsys, blockPack(t, env))
			v := replay(t, fsys.Type+", batch", r)
			if !v.OK() || v.Durable == 0 {
				t.Fatalf("%s, batch: %s", fsys.Type, v)
			}
			if r.stats["path"] != "batch" || r.stats["hardware-flush"] != 1.0 {
				t.Errorf("%s: the batch path did not run: %v", fsys.Type, r.stats)
			}
		})
	}
}

// TestBlockReplayNone is the negative control: with core.fsync=none the
// same replay must find objects lost or broken, which shows that the
// harness can fail.
func TestBlockReplayNone(t *testing.T) {
	for _, fsys := range blockFS {
		t.Run(fsys.Type, func(t *testing.T) {
			fsys.Options = quiet(fsys)
			env := realEnv(t)
			r := recordUnpack(t, env, fsys, blockPack(t, env), "-c", "core.fsync=none")
			v := replay(t, fsys.Type+", none", r)
			if v.OK() {
				t.Fatalf("%s, core.fsync=none passed the replay: the harness cannot fail\n%s", fsys.Type, v)
			}
		})
	}
}

// TestBlockReplayWriteoutOnly separates the two invariants on ext4: with
// writeouts before the renames but no flush (core.fsyncMethod=
// writeout-only), no final name may hold a broken object (I-b), but the
// images after the command returned must lack objects (I-a fails).
func TestBlockReplayWriteoutOnly(t *testing.T) {
	env := realEnv(t)
	fsys := blocktest.Ext4(32 << 20)
	fsys.Options = quiet(fsys)
	r := recordUnpack(t, env, fsys, blockPack(t, env), "-c", "core.fsync=loose-object", "-c", "core.fsyncMethod=writeout-only")
	v := replay(t, "ext4, writeout-only", r)
	if len(v.Broken) > 0 || len(v.Unclean) > 0 || len(v.Missing) == 0 {
		t.Fatalf("ext4, writeout-only: want intact objects and images missing some after the return\n%s", v)
	}
}

// quiet returns mount options that keep the filesystem from committing on
// a timer during a negative control (ext4 commits every 5 s; xfs syncs its
// log every 30 s by default), so that on a slow machine a background commit
// cannot make a run without flushes look durable.
func quiet(fsys blocktest.FS) string {
	if fsys.Type == "ext4" {
		return "commit=300"
	}
	return fsys.Options
}

// TestBlockReplayBtrfsFallback shows that on btrfs, where the batch scheme
// is not sound, the fallback (fsync of every object and of every directory
// that received a name) runs and is reported, and that I-a and I-b hold
// with it in the replayed crash images. The fallback flushes the device
// for every object, so a sample of the flush boundaries before the return
// is replayed, and every one after it.
func TestBlockReplayBtrfsFallback(t *testing.T) {
	env := realEnv(t)
	pack := packOf(t, env, historyRepo(t, env), "main~660\n", "--revs", "--delta-base-offset")
	replayFallback(t, env, blocktest.Btrfs(128<<20), pack, "btrfs", 5)
}

// replayFallback records an unpack on fsys, requires the fallback to have
// run with a reason naming why, and replays a sample of the flush
// boundaries before the return and every one after it: every object must
// be intact in every image and present after the return.
func replayFallback(t *testing.T, env []string, fsys blocktest.FS, pack []byte, why string, seed uint64) {
	t.Helper()
	r := recordUnpack(t, env, fsys, pack)
	if r.stats["path"] != "fallback-fsync" || !strings.Contains(fmt.Sprint(r.stats["reason"]), why) {
		t.Fatalf("%s: the fallback did not run or gave no reason: %v", why, r.stats)
	}
	r.scenario.Points = blocktest.PointOptions{Subsets: 2, Seed: seed, MaxBoundaries: 40}
	v := replay(t, why+", fallback", r)
	if !v.OK() || v.Durable == 0 {
		t.Fatalf("%s, fallback: %s", why, v)
	}
}

// TestBlockReplayExt4WithoutJournal: on an ext4 made without a journal
// (the filesystem the CI machines' root is), nothing orders the renames
// after the data, so the batch scheme is not sound there. The unpacker must
// see it, run the fallback and say why. Such a filesystem is repaired by
// e2fsck at boot after a crash, and so is each crash image here before it
// is mounted; then no final name may hold a broken object, and every object
// must be there after the return.
func TestBlockReplayExt4WithoutJournal(t *testing.T) {
	env := realEnv(t)
	fsys := blocktest.Ext4(32 << 20)
	fsys.Mkfs = append(append([]string{}, fsys.Mkfs...), "-O", "^has_journal")
	fsys.Repair = []string{"e2fsck", "-f", "-y"}
	replayFallback(t, env, fsys, blockPack(t, env), "ext4 without a journal", 7)
}
