//go:build !windows

package mirror

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// tryLock takes the lock of f without waiting; held reports that another
// process has it.
func tryLock(f *os.File) (held bool, err error) {
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// ownGroup makes cmd the leader of a process group of its own, with the
// git commands and the helper it starts.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// stop asks the process group of p to stop (git fetch under git remote
// update, the helper under it), so that git removes its lock files; what is
// left when the wait for it ends is killed (kill).
func stop(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGTERM) }

// kill kills what is left of the process group of p.
func kill(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
