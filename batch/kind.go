package batch

import "strings"

// Kind is what the policy needs to know of the filesystem under a store.
type Kind struct {
	// Name is the filesystem's name as the system reports it ("ext4",
	// "xfs", "btrfs", "apfs", "NTFS", …), with what disqualifies it where
	// the name alone does not ("ext4 without a journal", "ext4 with
	// nobarrier"); "" when unknown.
	Name string
	// Sound reports whether a writeout before a rename makes the data
	// durable whenever the rename is, so that the batch scheme holds.
	Sound bool
	// DirCommit reports that every full flush must be a full journal
	// commit asked for by syncing a directory, never a regular file: on
	// ext4 with fast commits (or where they cannot be ruled out) an fsync
	// of a regular file is a fast commit, and the kernel's recovery fails
	// on fast-commit areas that a crash can leave (a full area, or a first
	// fast commit whose tail did not reach the disk), so that the image
	// does not mount (docs/crash-model.md).
	DirCommit bool
	// Reason says why the scheme is not sound here; it becomes
	// Stats.Reason when the fallback runs.
	Reason string
}

// extUnknown is the ext2/3/4 whose configuration the kernel did not say.
const extUnknown = "ext2/3/4 of an unknown configuration"

// ordered lists the filesystems on which a writeout before a rename makes
// the data durable whenever the rename is (data=ordered journaling with a
// cache flush before each commit), so that the batch scheme is sound. tmpfs
// and ramfs are listed because nothing on them survives a crash anyway.
var ordered = map[string]bool{
	"ext4": true, "xfs": true, "tmpfs": true, "ramfs": true, // ext4: journaled, with barriers
	"ext4 with fast_commit": true, "ext4, fast_commit unknown": true, // with DirCommit
	"apfs": true, "hfs": true, // git's documented batch platforms
	"NTFS": true, "ReFS": true,
}

// KindOf returns the Kind of a filesystem by its name. Every ext4 name
// that mentions fast_commit gets DirCommit, and so does an ext2/3/4 of an
// unknown configuration: fast commits are not ruled out there either.
func KindOf(name string) Kind {
	dirCommit := strings.HasPrefix(name, "ext4") && strings.Contains(name, "fast_commit") || name == extUnknown
	if ordered[name] {
		return Kind{Name: name, Sound: true, DirCommit: dirCommit}
	}
	label := name
	if label == "" {
		label = "unknown"
	}
	return Kind{Name: name, DirCommit: dirCommit,
		Reason: "filesystem " + label + " is not known to make written-out data durable with a later rename"}
}
