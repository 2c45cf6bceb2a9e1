package mirror

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"golang.org/x/sys/windows"
)

// openLock opens the lock file path, creating it where it is missing; a
// path that is a link or no regular file is refused.
func openLock(path, _ string) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return nil, &refusal{fmt.Sprintf("%s is not a regular file", quotePath(path))}
	}
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
}

// tryLock takes the lock of f without waiting; held reports that another
// process has it.
func tryLock(f *os.File) (held bool, err error) {
	var ol windows.Overlapped
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}

// ownGroup does nothing: the processes git starts are not stopped with it.
func ownGroup(*exec.Cmd) {}

// stop ends git: Windows has no signal to ask it.
func stop(p *os.Process) error { return p.Kill() }

// kill does nothing more.
func kill(*os.Process) {}
