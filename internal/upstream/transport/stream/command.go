package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// commandTransport runs git-upload-pack or git-receive-pack through a
// command: the user's ssh, or git itself for a local repository.
type commandTransport struct {
	command func(ctx context.Context, service string, version int) (*exec.Cmd, error)
}

// Connect starts the command.
func (t *commandTransport) Connect(ctx context.Context, service string, version int) (Conn, error) {
	cmd, err := t.command(ctx, service, version)
	if err != nil {
		return nil, err
	}
	c := &commandConn{cmd: cmd, stderr: &tail{max: 4096}}
	cmd.Stderr = c.stderr
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if c.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", cmd.Path, err)
	}
	return c, nil
}

// killDelay is how long a command has to exit after SIGTERM before it is
// killed and its pipes closed.
const killDelay = time.Second

// command is exec.Command for a command that the end of ctx (an
// interruption, git gone) stops at once, the way git's cleanup stops its
// children: SIGTERM — git upload-pack then stops its pack-objects, ssh
// closes the connection — and if it has not exited killDelay later,
// SIGKILL and its pipes closed, so that a read waiting on them returns
// even when something it started still holds them.
func command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = killDelay
	return cmd
}

// commandConn is a running command's stdin and stdout.
type commandConn struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	stderr *tail

	once    sync.Once
	waitErr error
}

func (c *commandConn) Read(p []byte) (int, error)  { return c.stdout.Read(p) }
func (c *commandConn) Write(p []byte) (int, error) { return c.stdin.Write(p) }

// CloseWrite closes the command's input.
func (c *commandConn) CloseWrite() error { return c.stdin.Close() }

// Close ends the command: the end of its input, then a wait; a command
// that does not exit within 10 seconds is killed (within killDelay once
// the helper's context has ended: see command). A non-zero exit is an
// error in the words of the command's last line on stderr.
func (c *commandConn) Close() error {
	c.stdin.Close()
	c.once.Do(func() {
		done := make(chan error, 1)
		go func() { done <- c.cmd.Wait() }()
		select {
		case err := <-done:
			c.waitErr = err
		case <-time.After(10 * time.Second):
			c.cmd.Process.Kill()
			c.waitErr = <-done
		}
		if errors.Is(c.waitErr, exec.ErrWaitDelay) {
			c.waitErr = nil // it exited 0; something it started keeps its stderr
		}
		if c.waitErr != nil {
			if msg := c.stderr.lastLine(); msg != "" {
				c.waitErr = errors.New(strings.TrimPrefix(msg, "fatal: "))
			}
		}
	})
	return c.waitErr
}

// lastLine is the last line the command wrote on stderr.
func (c *commandConn) lastLine() string {
	c.Close()
	return c.stderr.lastLine()
}

// tail keeps the last bytes written to it (a command's stderr).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// lastLine returns the last line that is not empty.
func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
