package batch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// extKind tells the ext2/3/4 family apart, which share one statfs magic:
// the batch scheme needs a journal (its commit orders the renames and
// flushes the device cache before them) and barriers. It returns "ext4"
// only for a journaled filesystem mounted with barriers, as the kernel
// reports it under /proc/fs; anything else gets a name the policy does not
// trust ("ext4 without a journal", "ext4 with nobarrier", "ext2/3/4 of an
// unknown configuration").
func extKind(name string) string {
	dev, err := blockDevice(name)
	if err != nil {
		return "ext2/3/4 of an unknown configuration"
	}
	if _, err := os.Stat(filepath.Join("/proc/fs/jbd2", dev+"-8")); err != nil {
		return "ext4 without a journal"
	}
	opts, err := os.ReadFile(filepath.Join("/proc/fs/ext4", dev, "options"))
	if err != nil {
		return "ext2/3/4 of an unknown configuration"
	}
	for _, o := range strings.Fields(string(opts)) {
		if o == "nobarrier" || o == "barrier=0" {
			return "ext4 with nobarrier"
		}
	}
	return "ext4"
}

// blockDevice returns the kernel's name of the block device holding name
// ("vda", "loop1", "dm-0"), from /sys/dev/block/<major>:<minor>.
func blockDevice(name string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(name, &st); err != nil {
		return "", err
	}
	link, err := os.Readlink(fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev)))
	if err != nil {
		return "", err
	}
	return filepath.Base(link), nil
}
