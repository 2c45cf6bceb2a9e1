package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/proc"
)

// helperEnv, set, makes the test binary a helper under HelperMain that,
// once stopped, takes a while to clean up and then writes the file it
// names.
const helperEnv = "CLI_TEST_HELPER_DONE"

func TestMain(m *testing.M) {
	if done := os.Getenv(helperEnv); done != "" {
		HelperMain(func(ctx context.Context, args []string, env proc.Env) error {
			os.WriteFile(done+".started", nil, 0o666)
			<-ctx.Done()
			time.Sleep(300 * time.Millisecond) // the session's line, the store closed
			return os.WriteFile(done, []byte("cleaned up\n"), 0o666)
		})
	}
	os.Exit(m.Run())
}

// TestGroupStoppedHelperCleansUp: a process group stopped with SIGTERM —
// the parent (git) passes the signal on and exits at once, the helper is
// asked to stop by the same signal — lets the helper finish its clean-up:
// neither the SIGTERM passed on nor the parent's end kills it halfway.
func TestGroupStoppedHelperCleansUp(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	done := filepath.Join(t.TempDir(), "done")
	// The parent passes SIGTERM on to its child before it exits, as git
	// does for the helper it runs (clean_on_exit): the helper gets it
	// twice, and its parent's death after.
	parent := exec.Command("sh", "-c", `trap 'sleep 0.1; kill -TERM $c' TERM; "$0" -test.run=none & c=$!; wait`, bin)
	parent.Env = append(os.Environ(), helperEnv+"="+done)
	parent.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(done + ".started"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the helper did not start")
		}
	}
	syscall.Kill(-parent.Process.Pid, syscall.SIGTERM)
	parent.Wait()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(done)
		if err == nil && string(b) == "cleaned up\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the helper did not finish its clean-up: %v %q", err, b)
		}
	}
}
