package batch

import "encoding/binary"

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
