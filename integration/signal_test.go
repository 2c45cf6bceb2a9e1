//go:build linux

package integration

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestSignalsCleanUp interrupts git-unpack-durable with SIGINT, SIGTERM
// and SIGHUP (a terminal closed) while its input stalls in the middle of
// a streamed blob, whose temporary file is then open: it must not wait
// for more input but stop at once, remove its temporary files, print
// "fatal: interrupted" and exit with 128 plus the signal's number, as a
// process the signal killed would; git count-objects then finds no
// garbage and fsck is clean. The command starts with SIGHUP and SIGINT
// at their default, whatever this test started with (nohup, a shell's
// background job: withDispositions).
func TestSignalsCleanUp(t *testing.T) {
	env := env(t)
	pack := bigBlobPack(t, env, 2, 6<<20)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			repo := gittest.Init(t, env, true, "")
			gittest.Git(t, env, repo, "config", "core.bigFileThreshold", "1m")
			cmd := exec.Command(filepath.Join(binDir, "git-unpack-durable"))
			cmd.Dir, cmd.Env = repo, env
			withDispositions(t, cmd)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			stdin.Write(pack[:len(pack)/3]) // into the first blob's data
			for deadline := time.Now().Add(10 * time.Second); len(tempFiles(t, repo)) == 0; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("no temporary file appeared")
				}
			}
			if signalIgnored(t, cmd.Process.Pid, sig) {
				t.Fatalf("the command started with %v ignored: the test did not set its disposition", sig)
			}
			cmd.Process.Signal(sig)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("%v: still running 10 s later, waiting for input (temporary files %v)", sig, tempFiles(t, repo))
			}
			if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) || strings.TrimSpace(stderr.String()) != "fatal: interrupted" {
				t.Errorf("%v: exit %d (%v), stderr %q; want %d and \"fatal: interrupted\"", sig, code, cmd.ProcessState, stderr.String(), 128+int(sig))
			}
			if left := tempFiles(t, repo); len(left) != 0 {
				t.Errorf("%v: temporary files left: %v", sig, left)
			}
			if out := gittest.Git(t, env, repo, "count-objects", "-v"); !strings.Contains(out, "garbage: 0\n") {
				t.Errorf("git count-objects -v:\n%s", out)
			}
			gittest.Fsck(t, env, repo)
		})
	}
}

// TestSignalIgnoredUnderNohup: a signal the command started with ignored
// stays ignored, as for git — nohup ignores SIGHUP, so that a mirror
// started with `nohup git remote update &` survives the logout. SIGHUP
// sent in the middle of the pack changes nothing: the unpack completes.
func TestSignalIgnoredUnderNohup(t *testing.T) {
	if _, err := exec.LookPath("nohup"); err != nil {
		t.Skip("nohup is not installed: ", err)
	}
	env := env(t)
	pack := bigBlobPack(t, env, 2, 6<<20)
	repo := gittest.Init(t, env, true, "")
	gittest.Git(t, env, repo, "config", "core.bigFileThreshold", "1m")
	cmd := exec.Command("nohup", filepath.Join(binDir, "git-unpack-durable"))
	cmd.Dir, cmd.Env = repo, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write(pack[:len(pack)/3])
	for deadline := time.Now().Add(10 * time.Second); len(tempFiles(t, repo)) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			stdin.Close()
			cmd.Wait()
			t.Fatal("no temporary file appeared")
		}
	}
	if !signalIgnored(t, cmd.Process.Pid, syscall.SIGHUP) {
		stdin.Close()
		cmd.Wait()
		t.Fatal("nohup did not start the command with SIGHUP ignored")
	}
	cmd.Process.Signal(syscall.SIGHUP)
	time.Sleep(200 * time.Millisecond)
	stdin.Write(pack[len(pack)/3:])
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("SIGHUP under nohup: %v, stderr %q", err, stderr.String())
	}
	if n := strings.Count(gittest.Git(t, env, repo, "cat-file", "--batch-all-objects", "--batch-check"), "\n"); n == 0 {
		t.Fatal("no object was unpacked")
	}
	gittest.Fsck(t, env, repo)
}
