//go:build !windows

package remote

import (
	"io/fs"
	"syscall"
)

// inode returns the file's inode number.
func inode(st fs.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
