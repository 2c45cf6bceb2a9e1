//go:build unix

package quarantine

import (
	"os"
	"syscall"
)

// giveToOwner gives the directory dir, made by root, the owner and group
// of the git directory git: a runner run as root must not leave the
// repository's owner a quarantine it cannot empty (the runner run as that
// owner removes the folders past their retention).
func giveToOwner(dir, git string) {
	if os.Geteuid() != 0 {
		return
	}
	var st syscall.Stat_t
	if syscall.Stat(git, &st) == nil {
		os.Lchown(dir, int(st.Uid), int(st.Gid))
	}
}
