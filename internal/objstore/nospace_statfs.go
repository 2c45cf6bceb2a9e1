//go:build linux || darwin || freebsd

package objstore

import (
	"errors"
	"fmt"
	"syscall"
)

// NoSpaceHint explains a failure for want of space (ENOSPC) where the
// filesystem of dir has no inode left but free blocks — df then shows
// room, and a user takes the unpacker for giving up early; git says "No
// space left on device" for both. It returns "" otherwise.
func NoSpaceHint(err error, dir string) string {
	var st syscall.Statfs_t
	if !errors.Is(err, syscall.ENOSPC) || syscall.Statfs(dir, &st) != nil || st.Files == 0 || st.Ffree > 0 || st.Bavail == 0 {
		return ""
	}
	return fmt.Sprintf("the filesystem of %s has no inode left (df -i), though %d%% of its blocks are free", dir, uint64(st.Bavail)*100/uint64(st.Blocks))
}
