package batch

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// extKind asks the kernel what it knows of the ext2/3/4 mounted at name
// (Ext): what /proc/fs says and, for fast commits, what the kernel or the
// superblock says (fastCommit).
func extKind(name string) Ext {
	var st unix.Stat_t
	if err := unix.Stat(name, &st); err != nil {
		return Ext{Unknown: true}
	}
	dev, err := blockDevice(st.Dev)
	if err != nil {
		return Ext{Unknown: true}
	}
	if _, err := os.Stat(filepath.Join("/proc/fs/jbd2", dev+"-8")); err != nil {
		return Ext{NoJournal: true}
	}
	raw, err := os.ReadFile(filepath.Join("/proc/fs/ext4", dev, "options"))
	if err != nil {
		return Ext{Unknown: true}
	}
	opts := strings.Fields(string(raw))
	var e Ext
	for _, o := range opts {
		switch o {
		case "nobarrier", "barrier=0":
			e.NoBarrier = true
		case "journal_async_commit":
			e.AsyncCommit = true
		}
	}
	switch on, known := fastCommit(opts, name, dev, st.Dev); {
	case !known:
		e.FastCommit = FastCommitUnknown
	case on:
		e.FastCommit = FastCommitOn
	}
	return e
}

// fastCommit reports whether the ext4 mounted at name (the device dev,
// number devNum) may take fast commits, and whether that is known. Any
// user can ask the first two sources; the third needs read access to the
// device (root or the disk group):
//   - the mount options, on a kernel built with CONFIG_EXT4_DEBUG, show
//     the kernel's own flag as "fc_debug_force";
//   - EXT4_IOC_GET_TUNE_SB_PARAM (Linux 6.18 and later) on any file of
//     the filesystem returns the features of the mounted superblock;
//   - the superblock read from the device node.
//
// Where none answers (an older kernel, without the debug option, and no
// access to the device), fast commits are not known either way.
func fastCommit(opts []string, name, dev string, devNum uint64) (on, known bool) {
	for _, o := range opts {
		if o == "fc_debug_force" {
			return true, true
		}
	}
	if compat, err := tunedCompat(name); err == nil {
		return compatFastCommitOn(compat), true
	}
	sb, err := readSuperblock(filepath.Join("/dev", dev), devNum)
	if err != nil {
		return false, false
	}
	return superblockFastCommit(sb)
}

// tunedCompat returns s_feature_compat of the superblock of the ext4
// holding name, from the kernel: EXT4_IOC_GET_TUNE_SB_PARAM, which needs
// no privilege (Linux 6.18; older kernels answer ENOTTY). The request
// encodes the size of struct ext4_tune_sb_params: 232 bytes, or 228 on
// 32-bit x86 before 6.18.1 padded it; both are tried.
func tunedCompat(name string) (uint32, error) {
	if !genericIoctl[runtime.GOARCH] {
		return 0, unix.ENOTTY
	}
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	var params [tuneParamsSize]byte
	for _, size := range []uintptr{tuneParamsSize, tuneParamsSize - 4} {
		req := iocRead<<30 | size<<16 | 'f'<<8 | 45 // _IOR('f', 45, size)
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(&params[0])))
		if errno == 0 {
			return binary.NativeEndian.Uint32(params[tuneFeatureCompatAt:]), nil
		}
		if errno != unix.ENOTTY {
			return 0, errno
		}
	}
	return 0, unix.ENOTTY
}

// The kernel's struct ext4_tune_sb_params (include/uapi/linux/ext4.h):
// its size, and where feature_compat lies in it; and _IOC_READ.
const (
	tuneParamsSize      = 232
	tuneFeatureCompatAt = 64
	iocRead             = 2
)

// genericIoctl lists the architectures whose ioctl numbers have the
// layout of asm-generic/ioctl.h that tunedCompat builds its request in
// (mips, powerpc and sparc have another: they are not asked).
var genericIoctl = map[string]bool{"amd64": true, "386": true, "arm64": true, "arm": true,
	"riscv64": true, "loong64": true, "s390x": true}

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
	return compatFastCommitOn(binary.LittleEndian.Uint32(sb[sbFeatureCompatAt:])), true
}

// compatFastCommitOn reports whether the compatible features compat let
// the kernel take fast commits: the feature, and a journal for them.
func compatFastCommitOn(compat uint32) bool {
	return compat&compatFastCommit != 0 && compat&compatHasJournal != 0
}
