package batch

// FastCommit is what is known of an ext4's fast commits.
type FastCommit int

// What the kernel, or the superblock, says of fast commits.
const (
	FastCommitOff     FastCommit = iota // ruled out
	FastCommitOn                        // the filesystem may take fast commits
	FastCommitUnknown                   // nothing said either way
)

// Ext is what the policy knows of an ext2/3/4 filesystem, which share one
// statfs magic: the batch scheme needs a journal (its commit orders the
// renames and flushes the device cache before them), barriers, and a
// commit whose record waits for that flush (not journal_async_commit).
// Fast commits change how the scheme must ask for its commit (DirCommit).
// The zero Ext is a journaled ext4 with barriers and no fast commits.
type Ext struct {
	Unknown     bool // the kernel did not say how it is mounted: nothing below is known
	NoJournal   bool
	NoBarrier   bool // mounted nobarrier (barrier=0)
	AsyncCommit bool // mounted journal_async_commit
	FastCommit  FastCommit
}

// extUnknown is the name of the ext2/3/4 whose configuration the kernel
// did not say.
const extUnknown = "ext2/3/4 of an unknown configuration"

// Sound reports whether the batch scheme holds: a journal, barriers, and
// commit records that wait for the cache flush.
func (e Ext) Sound() bool {
	return !e.Unknown && !e.NoJournal && !e.NoBarrier && !e.AsyncCommit
}

// DirCommit reports whether fast commits are on or not ruled out, so that
// every full flush must sync a directory (Kind.DirCommit).
func (e Ext) DirCommit() bool {
	return e.Unknown || !e.NoJournal && e.FastCommit != FastCommitOff
}

// Name says what is known, as the stats print it: "ext4", "ext4 with
// fast_commit", "ext4, fast_commit unknown", or what disqualifies it
// ("ext4 without a journal", "ext4 with nobarrier", "ext4 with
// journal_async_commit", "ext2/3/4 of an unknown configuration"), those of
// a journal also saying what is known of fast commits.
func (e Ext) Name() string {
	switch {
	case e.Unknown:
		return extUnknown
	case e.NoJournal:
		return "ext4 without a journal"
	}
	name := "ext4"
	switch {
	case e.NoBarrier && e.AsyncCommit:
		name = "ext4 with nobarrier and journal_async_commit"
	case e.NoBarrier:
		name = "ext4 with nobarrier"
	case e.AsyncCommit:
		name = "ext4 with journal_async_commit"
	}
	switch {
	case e.FastCommit == FastCommitUnknown:
		return name + ", fast_commit unknown"
	case e.FastCommit == FastCommitOn && name == "ext4":
		return "ext4 with fast_commit"
	case e.FastCommit == FastCommitOn:
		return name + " and fast_commit"
	}
	return name
}

// Kind is the Kind of the filesystem e describes.
func (e Ext) Kind() Kind {
	if e.Sound() {
		return Kind{Name: e.Name(), Sound: true, DirCommit: e.DirCommit()}
	}
	return unsound(e.Name(), e.DirCommit())
}
