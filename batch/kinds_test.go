package batch_test

import (
	"testing"

	"github.com/git-durable/git-durable/batch"
)

// kinds are the filesystems the tests put a store on, by the names the
// stats give them.
var kinds = []batch.Kind{
	batch.Ext{}.Kind(),
	batch.Ext{FastCommit: batch.FastCommitOn}.Kind(),
	batch.Ext{FastCommit: batch.FastCommitUnknown}.Kind(),
	batch.Ext{AsyncCommit: true}.Kind(),
	batch.Ext{AsyncCommit: true, FastCommit: batch.FastCommitOn}.Kind(),
	batch.Ext{AsyncCommit: true, FastCommit: batch.FastCommitUnknown}.Kind(),
	batch.Ext{Unknown: true}.Kind(),
	batch.KindOf("xfs"),
	batch.KindOf("btrfs"),
}

// kindNamed is the kind of kinds whose name is name.
func kindNamed(t testing.TB, name string) batch.Kind {
	t.Helper()
	for _, k := range kinds {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no filesystem kind named %q", name)
	return batch.Kind{}
}

// TestExtKinds: what the policy asks of each ext4 it tells apart.
func TestExtKinds(t *testing.T) {
	for _, tt := range []struct {
		ext              batch.Ext
		name             string
		sound, dirCommit bool
	}{
		{batch.Ext{}, "ext4", true, false},
		{batch.Ext{FastCommit: batch.FastCommitOn}, "ext4 with fast_commit", true, true},
		{batch.Ext{FastCommit: batch.FastCommitUnknown}, "ext4, fast_commit unknown", true, true},
		{batch.Ext{NoJournal: true, FastCommit: batch.FastCommitUnknown}, "ext4 without a journal", false, false},
		{batch.Ext{NoBarrier: true}, "ext4 with nobarrier", false, false},
		{batch.Ext{NoBarrier: true, FastCommit: batch.FastCommitOn}, "ext4 with nobarrier and fast_commit", false, true},
		{batch.Ext{AsyncCommit: true, FastCommit: batch.FastCommitUnknown}, "ext4 with journal_async_commit, fast_commit unknown", false, true},
		{batch.Ext{Unknown: true}, "ext2/3/4 of an unknown configuration", false, true},
	} {
		k := tt.ext.Kind()
		if k.Name != tt.name || k.Sound != tt.sound || k.DirCommit != tt.dirCommit || k.Sound != (k.Reason == "") {
			t.Errorf("%+v: %+v, want %q, sound %v, directory commits %v", tt.ext, k, tt.name, tt.sound, tt.dirCommit)
		}
	}
}
