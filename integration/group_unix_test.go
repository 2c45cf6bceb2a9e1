//go:build !windows

package integration

import (
	"os/exec"
	"syscall"
)

// inGroup makes cmd start in a process group of its own, so that
// killGroup also ends the processes it forks (a daemon's connections).
func inGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group that the started cmd leads.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
