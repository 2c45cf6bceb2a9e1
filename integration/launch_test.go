//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launchedEnv marks the run of this test binary that TestSuiteInBackground
// started: there, that test checks how it was started instead of starting
// another run.
const launchedEnv = "GIT_DURABLE_TEST_LAUNCHED"

// launchedTests are the tests, and subtests, TestSuiteInBackground runs
// again and wants passed: those of signal_test.go, which send the
// unpacker SIGHUP and SIGINT, and itself.
var launchedTests = []string{
	"TestSuiteInBackground",
	"TestSignalsCleanUp", "TestSignalsCleanUp/interrupt", "TestSignalsCleanUp/terminated", "TestSignalsCleanUp/hangup",
	"TestSignalIgnoredUnderNohup",
}

// TestSuiteInBackground runs the signal tests again, in this test binary
// started as a script's `nohup make test > log 2>&1 &` starts the suite
// (issue #39): as a background job of a shell without job control (SIGINT
// and SIGQUIT ignored), under nohup (SIGHUP ignored), with stdin from
// /dev/null, in a session of its own with no terminal (setsid, as from
// cron). Every one must pass, none skip; in that run, this test checks
// that it was started so (checkLaunched).
func TestSuiteInBackground(t *testing.T) {
	if os.Getenv(launchedEnv) != "" {
		checkLaunched(t)
		return
	}
	for _, tool := range []string{"sh", "nohup", "setsid"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var top []string
	for _, name := range launchedTests {
		if !strings.Contains(name, "/") {
			top = append(top, name)
		}
	}
	log := filepath.Join(t.TempDir(), "log")
	cmd := exec.Command("setsid", "sh", "-c", `log=$1; shift; nohup "$@" </dev/null >"$log" 2>&1 & wait $!`, "sh", log,
		self, "-test.run=^("+strings.Join(top, "|")+")$", "-test.count=1", "-test.v", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), launchedEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := time.AfterFunc(3*time.Minute, func() { killGroup(cmd) }) // setsid: sh leads a group of its own
	err = cmd.Wait()
	stop.Stop()
	out, _ := os.ReadFile(log)
	if err != nil {
		t.Fatalf("the tests started like nohup make test &: %v\n%s", err, out)
	}
	for _, name := range launchedTests {
		if !strings.Contains(string(out), "--- PASS: "+name+" (") {
			t.Errorf("%s did not pass", name)
		}
	}
	if strings.Contains(string(out), "--- SKIP") || strings.Contains(string(out), "--- FAIL") {
		t.Errorf("a test skipped or failed")
	}
	if t.Failed() {
		t.Logf("the run said:\n%s", out)
	}
}

// checkLaunched fails unless this process started as TestSuiteInBackground
// starts it: SIGHUP and SIGINT ignored (SIGQUIT too, but the Go runtime
// handles it in their place, and so passes it on at its default), stdin
// /dev/null, no controlling terminal.
func checkLaunched(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if !signalIgnored(t, os.Getpid(), sig) {
			t.Errorf("started with %v not ignored", sig)
		}
	}
	if in, err := os.Readlink("/proc/self/fd/0"); in != "/dev/null" {
		t.Errorf("stdin is %q (%v), not /dev/null", in, err)
	}
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	// After the command's name: state, ppid, pgrp, session, tty_nr.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if tty, err := strconv.Atoi(fields[4]); tty != 0 || err != nil {
		t.Errorf("a controlling terminal (tty_nr %s)", fields[4])
	}
}
