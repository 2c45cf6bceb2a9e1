package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// watchParent has the kernel send SIGTERM, which Main turns into the end
// of the context, when the parent process exits (PR_SET_PDEATHSIG); a
// parent that exited before that was set shows as a changed parent pid,
// and cancel is called. The kernel sends the signal when the thread that
// started the process ends, which for git, single-threaded where it starts
// its helpers, is the process.
func watchParent(cancel func()) {
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0); err != nil {
		watchParentByPid(cancel)
		return
	}
	if os.Getppid() != parentAtStart {
		cancel()
	}
}
