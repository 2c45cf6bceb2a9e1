//go:build linux

package remote

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/proc"
	"github.com/git-durable/git-durable/internal/upstream/transport/stream"
)

// stuckUpstream's services send no advertisement: a read of one waits for
// the helper's context to end, or gives up after wait.
type stuckUpstream struct {
	wait     time.Duration
	canceled chan error // why the context ended, when it did
}

func (u *stuckUpstream) Connect(ctx context.Context, service string, _ int) (stream.Conn, error) {
	if service != "git-upload-pack" {
		return nil, errors.New("no receive-pack here")
	}
	return &stuckConn{u: u, ctx: ctx}, nil
}

type stuckConn struct {
	u   *stuckUpstream
	ctx context.Context
}

func (c *stuckConn) Read([]byte) (int, error) {
	select {
	case <-c.ctx.Done():
		c.u.canceled <- context.Cause(c.ctx)
		return 0, c.ctx.Err()
	case <-time.After(c.u.wait):
		return 0, errors.New("the upstream gave up")
	}
}

func (c *stuckConn) Write(p []byte) (int, error) { return len(p), nil }
func (c *stuckConn) CloseWrite() error           { return nil }
func (c *stuckConn) Close() error                { return nil }

// TestHangupStopsCommand: git's end of stdin closing while the helper
// answers a command stops the command (its context ends with
// errGitGone); a writer that sent more than the command, or closed with
// input unread, is not taken for a git that went away.
func TestHangupStopsCommand(t *testing.T) {
	sealed(t, "")
	for _, tc := range []struct {
		name, input string
		closeAfter  time.Duration
		want        string
	}{
		{"git gone mid-command", "list\n", 200 * time.Millisecond, "fatal: " + errGitGone.Error() + "\n"},
		{"git gone before the command ran", "list\n", 0, "fatal: " + errGitGone.Error() + "\n"},
		{"a script's commands", "list\n\n", 0, "fatal: the upstream gave up\n"},
		{"git waits", "list\n", -1, "fatal: the upstream gave up\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			w.WriteString(tc.input)
			switch {
			case tc.closeAfter == 0:
				w.Close()
			case tc.closeAfter > 0:
				time.AfterFunc(tc.closeAfter, func() { w.Close() })
			}
			up := &stuckUpstream{wait: time.Second, canceled: make(chan error, 1)}
			var out, errb bytes.Buffer
			start := time.Now()
			err = Run(context.Background(), []string{"origin", "/nowhere.git"}, proc.Env{Stdin: r, Stdout: &out, Stderr: &errb, Getenv: os.Getenv}, Options{Dial: dialOf(up)})
			var ee *cli.ExitError
			if !errors.As(err, &ee) || ee.Code != 128 || errb.String() != tc.want {
				t.Fatalf("Run: %v, stderr %q; want exit 128 and %q", err, errb.String(), tc.want)
			}
			took := time.Since(start)
			gone := tc.want != "fatal: the upstream gave up\n"
			if gone && (took > 700*time.Millisecond || len(up.canceled) != 1 || <-up.canceled != errGitGone) {
				t.Fatalf("stopped after %v, the upstream's read saw the end: %v", took, len(up.canceled) > 0)
			}
		})
	}
}
