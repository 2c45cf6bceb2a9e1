package stream

import (
	"bufio"
	"context"
	"os/exec"
	"testing"
	"time"
)

// TestCommandStopsWithContext: when the helper's context ends, a command
// transport's read returns and its command ends at once — SIGTERM, then
// SIGKILL killDelay later for one that ignores it — instead of the read
// waiting for the upstream and Close for 10 seconds.
func TestCommandStopsWithContext(t *testing.T) {
	for name, script := range map[string]string{
		"exits on SIGTERM": "exec sleep 30",
		"ignores SIGTERM":  "trap '' TERM; exec sleep 30",
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var cmd *exec.Cmd
			tr := &commandTransport{command: func(ctx context.Context, _ string, _ int) (*exec.Cmd, error) {
				cmd = command(ctx, "sh", "-c", script)
				return cmd, nil
			}}
			s := Dial(tr, nil)()
			time.AfterFunc(100*time.Millisecond, cancel)
			start := time.Now()
			err := s.Handshake(ctx, "git-upload-pack", 0, func(in *bufio.Reader) (int, error) {
				_, err := in.ReadByte()
				return 0, err
			})
			if err == nil {
				t.Fatal("an advertisement from sleep")
			}
			s.Close()
			took := time.Since(start)
			if cmd.ProcessState == nil || took > killDelay+2*time.Second {
				t.Fatalf("the command ended %v after the start (state %v); want at most %v after the cancellation", took, cmd.ProcessState, killDelay)
			}
			t.Logf("ended %v after the start: %v", took.Round(time.Millisecond), cmd.ProcessState)
		})
	}
}
