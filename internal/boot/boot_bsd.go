//go:build darwin || freebsd || netbsd || openbsd

package boot

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// ID names the running boot: the time it began (kern.boottime). "" where
// it cannot be read.
func ID() string {
	t := Time()
	if t.IsZero() {
		return ""
	}
	return fmt.Sprintf("boottime %d.%06d", t.Unix(), t.Nanosecond()/1000)
}

// Time returns when the running boot began (kern.boottime); the zero time
// where it cannot be read.
func Time() time.Time {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return time.Time{}
	}
	return time.Unix(tv.Sec, int64(tv.Usec)*1000)
}
