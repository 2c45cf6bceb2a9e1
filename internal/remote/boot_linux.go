package remote

import (
	"os"
	"strings"
)

// bootID names the running boot of the machine: the kernel's random
// boot_id, new at every boot, so that a crash (which a boot follows) is
// seen by the first fetch after it. "" where it cannot be read.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
