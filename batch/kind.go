package batch

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
	// Reason says why the scheme is not sound here; it becomes
	// Stats.Reason when the fallback runs.
	Reason string
}

// ordered lists the filesystems on which a writeout before a rename makes
// the data durable whenever the rename is (data=ordered journaling with a
// cache flush before each commit), so that the batch scheme is sound. tmpfs
// and ramfs are listed because nothing on them survives a crash anyway.
var ordered = map[string]bool{
	"ext4": true, "xfs": true, "tmpfs": true, "ramfs": true, // ext4: journaled, with barriers
	"apfs": true, "hfs": true, // git's documented batch platforms
	"NTFS": true, "ReFS": true,
}

// KindOf returns the Kind of a filesystem by its name.
func KindOf(name string) Kind {
	if ordered[name] {
		return Kind{Name: name, Sound: true}
	}
	label := name
	if label == "" {
		label = "unknown"
	}
	return Kind{Name: name, Reason: "filesystem " + label + " is not known to make written-out data durable with a later rename"}
}
