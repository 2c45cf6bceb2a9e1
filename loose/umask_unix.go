//go:build !windows

package loose

import (
	"io/fs"
	"syscall"
)

// umask reads the process umask (by setting and restoring it; called once,
// before any file is created).
func umask() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}
