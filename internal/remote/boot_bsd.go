//go:build darwin || freebsd || netbsd || openbsd

package remote

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// bootID names the running boot of the machine: the time it booted
// (kern.boottime), so that a crash (which a boot follows) is seen by the
// first fetch after it. "" where it cannot be read.
func bootID() string {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return ""
	}
	return fmt.Sprintf("boottime %d.%06d", tv.Sec, tv.Usec)
}
