package cli

import (
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

// parentSignal is the signal the kernel sends when the parent exits. It is
// not SIGTERM: a group stopped with SIGTERM (the mirror runner's time
// limit) delivers SIGTERM to git and to the helper at once, and git's exit
// a moment later would be a second SIGTERM, the one Main leaves to its
// default effect — the helper killed while it still writes its session's
// line. This one only ever ends the context.
const parentSignal = unix.SIGUSR2

// watchParent has the kernel send parentSignal, which ends the context,
// when the parent process exits (PR_SET_PDEATHSIG); a parent that exited
// before that was set shows as a changed parent pid, and cancel is called.
// The kernel sends the signal when the thread that started the process
// ends, which for git, single-threaded where it starts its helpers, is the
// process.
func watchParent(cancel func()) {
	gone := make(chan os.Signal, 1)
	signal.Notify(gone, parentSignal)
	go func() {
		<-gone
		cancel()
	}()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(parentSignal), 0, 0, 0); err != nil {
		watchParentByPid(cancel)
		return
	}
	if os.Getppid() != parentAtStart {
		cancel()
	}
}
