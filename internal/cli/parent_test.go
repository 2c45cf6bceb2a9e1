package cli

import (
	"testing"
	"time"
)

// TestWatchParentByPid: the fallback watch calls cancel once the parent
// pid is no longer the one the process started with.
func TestWatchParentByPid(t *testing.T) {
	saved := parentAtStart
	defer func() { parentAtStart = saved }()
	parentAtStart = -1 // as if the parent had exited: the pid differs
	done := make(chan struct{})
	watchParentByPid(func() { close(done) })
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("cancel was not called")
	}
}
