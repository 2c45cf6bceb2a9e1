package integration

import "os/exec"

// inGroup does nothing: Windows has no process groups to kill at once.
func inGroup(cmd *exec.Cmd) {}

// killGroup kills the started cmd.
func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
