package batch

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// extKind tells the ext2/3/4 family apart, which share one statfs magic:
// the batch scheme needs a journal (its commit orders the renames and
// flushes the device cache before them) and barriers, and a commit whose
// record waits for that flush (not journal_async_commit). Fast commits
// change how the scheme must ask for its commit (Kind.DirCommit). The
// name says what the kernel reports under /proc/fs and, for fast commits,
// what the superblock says: "ext4", "ext4 with fast_commit", "ext4,
// fast_commit unknown", or a name the policy does not trust ("ext4
// without a journal", "ext4 with nobarrier", "ext4 with
// journal_async_commit", "ext2/3/4 of an unknown configuration"), those
// of a journal also saying what is known of fast commits.
func extKind(name string) string {
	var st unix.Stat_t
	if err := unix.Stat(name, &st); err != nil {
		return "ext2/3/4 of an unknown configuration"
	}
	dev, err := blockDevice(st.Dev)
	if err != nil {
		return "ext2/3/4 of an unknown configuration"
	}
	if _, err := os.Stat(filepath.Join("/proc/fs/jbd2", dev+"-8")); err != nil {
		return "ext4 without a journal"
	}
	raw, err := os.ReadFile(filepath.Join("/proc/fs/ext4", dev, "options"))
	if err != nil {
		return "ext2/3/4 of an unknown configuration"
	}
	opts := strings.Fields(string(raw))
	kind := "ext4"
	for _, o := range opts {
		switch o {
		case "nobarrier", "barrier=0":
			kind = "ext4 with nobarrier"
		case "journal_async_commit":
			kind = "ext4 with journal_async_commit"
		}
	}
	switch on, known := fastCommit(opts, dev, st.Dev); {
	case !known:
		return kind + ", fast_commit unknown"
	case on && kind == "ext4":
		return "ext4 with fast_commit"
	case on:
		return kind + " and fast_commit"
	}
	return kind
}

// fastCommit reports whether the ext4 on the device dev (number devNum)
// may take fast commits, and whether that is known. The mount options
// say so only on a kernel built with CONFIG_EXT4_DEBUG (the flag shows as
// "fc_debug_force"); otherwise the superblock's feature flag tells, read
// from the device node, which needs read access to the device (root or
// the disk group). When neither can be read, it is not known.
func fastCommit(opts []string, dev string, devNum uint64) (on, known bool) {
	for _, o := range opts {
		if o == "fc_debug_force" {
			return true, true
		}
	}
	sb, err := readSuperblock(filepath.Join("/dev", dev), devNum)
	if err != nil {
		return false, false
	}
	return superblockFastCommit(sb)
}

// readSuperblock reads the ext4 superblock (1024 bytes at offset 1024)
// from the device node name, after checking that it is the device devNum.
func readSuperblock(name string, devNum uint64) ([]byte, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK || st.Rdev != devNum {
		return nil, fmt.Errorf("%s is not the block device %d:%d", name, unix.Major(devNum), unix.Minor(devNum))
	}
	sb := make([]byte, superblockSize)
	if n, err := unix.Pread(fd, sb, superblockOffset); err != nil || n != len(sb) {
		return nil, fmt.Errorf("reading the superblock of %s: %d bytes, %v", name, n, err)
	}
	return sb, nil
}

// blockDevice returns the kernel's name of the block device devNum
// ("vda", "loop1", "dm-0"), from /sys/dev/block/<major>:<minor>.
func blockDevice(devNum uint64) (string, error) {
	link, err := os.Readlink(fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(devNum), unix.Minor(devNum)))
	if err != nil {
		return "", err
	}
	return filepath.Base(link), nil
}

// The ext2/3/4 superblock: where it lies on the device and the fields the
// policy reads (the kernel's struct ext4_super_block).
const (
	superblockOffset = 1024
	superblockSize   = 1024

	sbMagicAt         = 0x38 // s_magic, little-endian 16 bits
	sbFeatureCompatAt = 0x5C // s_feature_compat, little-endian 32 bits

	extMagic               = 0xEF53
	compatHasJournal       = 0x0004
	compatFastCommit       = 0x0400 // EXT4_FEATURE_COMPAT_FAST_COMMIT
	superblockFieldsNeeded = sbFeatureCompatAt + 4
)

// superblockFastCommit reads the fast_commit feature flag of an ext4
// superblock: on reports it (fast commits need a journal, so a superblock
// without one reports false), ok that sb is an ext2/3/4 superblock.
func superblockFastCommit(sb []byte) (on, ok bool) {
	if len(sb) < superblockFieldsNeeded || binary.LittleEndian.Uint16(sb[sbMagicAt:]) != extMagic {
		return false, false
	}
	compat := binary.LittleEndian.Uint32(sb[sbFeatureCompatAt:])
	return compat&compatFastCommit != 0 && compat&compatHasJournal != 0, true
}
