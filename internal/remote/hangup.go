package remote

import (
	"context"
	"errors"
	"io"
	"sync"
)

// errGitGone is why the helper stops when git goes away while it waits
// for an answer.
var errGitGone = errors.New("git closed the dialogue while waiting for an answer; stopped")

// hangup stops the helper when git goes away in the middle of a command.
// git writes nothing between a command and its answer (it waits for the
// answer), so its end of stdin closing then means git is gone — killed,
// out of memory, or stopped without its children — and what the helper
// fetches or pushes has nobody to receive it: the context ends with
// errGitGone, which stops the transports and their commands, and the
// unpacker removes what it had not finished. The pipe is watched for the
// hang-up, never read, so the dialogue is left as it is.
//
// A writer that sent more than the command, or sent it and then closed
// stdin with the rest still unread (a script feeding the helper, not git),
// is not taken for a git that went away: its commands run to the end, as
// before.
type hangup struct {
	cancel  context.CancelCauseFunc
	pending func() bool // input is waiting in the pipe
	stop    func()

	mu     sync.Mutex
	closed bool // the other end has closed
	busy   bool // a command is being answered
	ahead  bool // more than the command had been read with it
}

// newHangup watches in, when it is a pipe or a socket, and cancels with
// errGitGone as described above. Its methods do nothing on nil, which it
// returns when in cannot be watched.
func newHangup(in io.Reader, cancel context.CancelCauseFunc) *hangup {
	g := &hangup{cancel: cancel}
	pending, stop, ok := watchHangup(in, g.hungUp)
	if !ok {
		return nil
	}
	g.pending, g.stop = pending, stop
	return g
}

// hungUp is called once the other end has closed.
func (g *hangup) hungUp() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.check()
}

// answering says that a command was read and is being answered; ahead,
// that more input than the command had been read with it.
func (g *hangup) answering(ahead bool) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy, g.ahead = true, ahead
	g.check()
}

// answered says that the answer was written.
func (g *hangup) answered() {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.busy = false
	g.mu.Unlock()
}

func (g *hangup) check() {
	if g.closed && g.busy && !g.ahead && !g.pending() {
		g.cancel(errGitGone)
	}
}

// close stops watching.
func (g *hangup) close() {
	if g != nil {
		g.stop()
	}
}
