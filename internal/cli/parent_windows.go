package cli

// watchParent does nothing on Windows: a process keeps its parent's pid
// there after the parent exits, so the pid cannot tell. There the helper
// notices git's end only when it next reads git's commands.
func watchParent(cancel func()) {}
