//go:build !linux

package cli

// watchParent calls cancel once the parent process has exited, seen by
// its pid (no parent-death signal outside Linux).
func watchParent(cancel func()) { watchParentByPid(cancel) }
