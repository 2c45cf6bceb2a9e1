package cli

// watchParent does nothing on Windows: a process keeps its parent's pid
// there after the parent exits, so the pid cannot tell, and the helper
// relies on the end of its input (git's side of the pipe closing) alone.
func watchParent(cancel func()) {}
