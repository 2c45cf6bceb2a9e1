//go:build !windows

package main

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// inGroup starts cmd as the leader of a process group of its own: git
// daemon runs git-daemon under it, and forks a process per connection.
func inGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group p leads.
func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }

// syncAll writes every dirty buffer of the system out (sync(2)), so that a
// run does not pay for the dirty data of the one before.
func syncAll() { syscall.Sync() }

// maxRSSKB is the peak resident set of an ended process in KiB: getrusage's
// ru_maxrss, which macOS counts in bytes and the others in KiB.
func maxRSSKB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}

// inode returns the device and inode of the file fi describes: names of
// one file (a hard link the quarantine keeps) are counted once.
func inode(fi os.FileInfo) ([2]uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return [2]uint64{}, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
