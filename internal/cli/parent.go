package cli

import (
	"os"
	"time"
)

// parentAtStart is the parent's pid when the process started, read as
// early as Go code runs.
var parentAtStart = os.Getppid()

// parentPoll is how often watchParentByPid looks at the parent's pid.
const parentPoll = 200 * time.Millisecond

// watchParentByPid calls cancel once the parent process has exited, which
// shows on Unix as the process's parent pid changing (to init or a
// subreaper).
func watchParentByPid(cancel func()) {
	go func() {
		for os.Getppid() == parentAtStart {
			time.Sleep(parentPoll)
		}
		cancel()
	}()
}
