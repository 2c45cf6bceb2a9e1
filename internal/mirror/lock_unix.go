//go:build !windows

package mirror

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// openLock opens the lock file path of the git directory dir without
// following a symbolic link, creating it where it is missing: for reading
// and writing where the runner may, else for reading (a lock file another
// user's run created is as good: flock needs no write access). A new one
// belongs to the owner of dir, so that a run as root leaves nothing its
// owner's runs cannot open. A path that is a link or no regular file is
// refused.
func openLock(path, dir string) (*os.File, error) {
	const flags = unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|flags, 0o666)
	created := err == nil
	if errors.Is(err, unix.EEXIST) {
		fd, err = unix.Open(path, unix.O_RDWR|flags, 0)
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EROFS) {
			fd, err = unix.Open(path, unix.O_RDONLY|flags, 0)
		}
	}
	if errors.Is(err, unix.ELOOP) {
		return nil, &refusal{fmt.Sprintf("%s is a symbolic link", quotePath(path))}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.Close()
		return nil, &refusal{fmt.Sprintf("%s is not a regular file", quotePath(path))}
	}
	if created {
		var d unix.Stat_t
		if unix.Stat(dir, &d) == nil && d.Uid != st.Uid && os.Geteuid() == 0 {
			unix.Fchown(fd, int(d.Uid), int(d.Gid))
		}
	}
	return f, nil
}

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
