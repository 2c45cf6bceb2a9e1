package boot

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// ID names the running boot: the kernel's random boot_id, new at every
// boot. "" where it cannot be read.
func ID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Time returns when the running boot began (btime of /proc/stat, to the
// second); the zero time where it cannot be read.
func Time() time.Time {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "btime "); ok {
			if s, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(s, 0)
			}
		}
	}
	return time.Time{}
}
