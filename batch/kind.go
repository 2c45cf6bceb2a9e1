package batch

// Kind is what the policy needs to know of the filesystem under a store.
type Kind struct {
	// Name is the filesystem's name as the system reports it ("ext4",
	// "xfs", "btrfs", "apfs", "NTFS", …), with what disqualifies it where
	// the name alone does not ("ext4 without a journal", "ext4 with
	// nobarrier", see Ext.Name); "" when unknown. It is for people and the
	// stats: the policy asks Sound and DirCommit.
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

// ordered lists the filesystems, by name alone, on which a writeout before
// a rename makes the data durable whenever the rename is (data=ordered
// journaling with a cache flush before each commit), so that the batch
// scheme is sound. tmpfs and ramfs are listed because nothing on them
// survives a crash anyway. An ext4 is told apart by what the kernel says
// of it (Ext); the bare name stands for a journaled one with barriers and
// no fast commits.
var ordered = map[string]bool{
	"ext4": true, "xfs": true, "tmpfs": true, "ramfs": true,
	"apfs": true, "hfs": true, // git's documented batch platforms
	"NTFS": true, "ReFS": true,
}

// KindOf returns the Kind of a filesystem by its name alone.
func KindOf(name string) Kind {
	if ordered[name] {
		return Kind{Name: name, Sound: true}
	}
	return unsound(name, false)
}

// unsound is the Kind of a filesystem where the scheme does not hold.
func unsound(name string, dirCommit bool) Kind {
	label := name
	if label == "" {
		label = "unknown"
	}
	return Kind{Name: name, DirCommit: dirCommit,
		Reason: "filesystem " + label + " is not known to make written-out data durable with a later rename"}
}
