//go:build !linux && !windows

package cli

// watchParent calls cancel once the parent process has exited, seen by
// its pid (no parent-death signal outside Linux; on Unix the pid of an
// orphan's parent changes to init's or a subreaper's).
func watchParent(cancel func()) { watchParentByPid(cancel) }
