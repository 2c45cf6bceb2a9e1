package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/gittest"
)

// What a command used, measured from outside it: its peak RSS (the rusage
// tool), its system calls (strace) and git's trace2 fsync counters.

// rusageSrc is a tiny program that runs a command and writes the peak RSS
// of that command to a file. The measurement has to come from a small
// parent: os/exec starts a child with vfork in the parent's address space,
// and Linux carries that space's high-water mark into the child's
// ru_maxrss across the exec — measured from this test binary, every run
// would show the test binary's own peak.
const rusageSrc = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	// Ahead of the other work of the machine where it may (root): a
	// loaded machine's CPUs let the collector fall behind and the peak
	// grow with the load, not with what the command holds (measured
	// under three busy loops: 57 MiB median at the same priority, 52 at
	// -10, 51 on a quiet machine).
	syscall.Setpriority(syscall.PRIO_PROCESS, 0, -10)
	c := exec.Command(os.Args[2], os.Args[3:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.Run()
	if c.ProcessState == nil {
		os.Exit(255)
	}
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	os.WriteFile(os.Args[1], []byte(fmt.Sprint(ru.Maxrss)), 0o644)
	os.Exit(c.ProcessState.ExitCode())
}
`

// rusageTool builds the rusage program into dir.
func rusageTool(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join(dir, "rusage.go")
	if err := os.WriteFile(src, []byte(rusageSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "rusage")
	c := exec.Command("go", "build", "-o", bin, src)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("building the rusage tool: %v\n%s", err, out)
	}
	return bin
}

// rssRun is a run of git-unpack-durable measured by peakRSS.
type rssRun struct {
	code   int
	rss    int64 // bytes
	stderr string
}

// peakRSS runs the built git-unpack-durable in repo with pack on stdin,
// through the rusage tool.
func peakRSS(t *testing.T, tool string, env []string, repo string, pack []byte, args ...string) rssRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "maxrss")
	c := exec.Command(tool, append([]string{out, filepath.Join(binDir, "git-unpack-durable")}, args...)...)
	c.Dir, c.Env, c.Stdin = repo, env, bytes.NewReader(pack)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	err := c.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return rssRun{code: c.ProcessState.ExitCode(), rss: readRSS(t, out, stderr.String()), stderr: stderr.String()}
}

// readRSS reads the peak RSS in bytes that the rusage tool wrote to path
// (in KiB); stderr is the measured command's, shown if there is none.
func readRSS(t *testing.T, path, stderr string) int64 {
	t.Helper()
	kib, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no measurement: %v\n%s", err, stderr)
	}
	n, err := strconv.ParseInt(string(kib), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n << 10
}

// straceCalls are the system calls a trace records: those that open,
// write, sync, close, name and remove files and directories.
const straceCalls = "openat,write,close,sync_file_range,fsync,fdatasync,rename,renameat,renameat2,link,linkat,unlink,unlinkat,mkdir,mkdirat"

// straced runs `git <args>` under strace in repo with pack on stdin and
// returns the parsed calls.
func straced(t *testing.T, env []string, repo string, pack []byte, args ...string) []crashtest.Call {
	t.Helper()
	out := filepath.Join(t.TempDir(), "trace")
	full := append([]string{"-f", "-y", "-qq", "-e", "signal=none", "-e", "trace=" + straceCalls, "-o", out, "git"}, args...)
	c := gittest.Exec(t, env, repo, pack, "strace", full...)
	if c.Code != 0 {
		t.Fatalf("git %v under strace: exit %d\n%s", args, c.Code, c.Stderr)
	}
	return readTrace(t, out)
}

// readTrace parses an strace output file.
func readTrace(t *testing.T, path string) []crashtest.Call {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	calls, err := crashtest.ParseStrace(f)
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

// underStrace returns env with a git-remote-durable first on PATH that
// runs the real one under strace, writing the trace of straceCalls (every
// process, file names resolved) to trace. Without strace the test is
// skipped: .ci/run installs it.
func underStrace(t *testing.T, env []string) (withStrace []string, trace string) {
	t.Helper()
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed: ", err)
	}
	wrap := t.TempDir()
	trace = filepath.Join(wrap, "trace")
	script := "#!/bin/sh\nexec " + strace + " -f -y -qq -e signal=none -e trace=" + straceCalls + " -o " + trace + " " +
		filepath.Join(binDir, "git-remote-durable") + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(wrap, "git-remote-durable"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return append(env, "PATH="+wrap+string(os.PathListSeparator)+binDir+string(os.PathListSeparator)+os.Getenv("PATH")), trace
}

// fsyncEvents returns the fsync events of a trace2 file as
// "<event> <key or name>=<value or count>", sorted.
func fsyncEvents(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		var ev struct {
			Event, Category, Key, Name string
			Value                      any
			Count                      any
		}
		if json.Unmarshal([]byte(l), &ev) != nil || ev.Category != "fsync" {
			continue
		}
		if ev.Event == "data" {
			out = append(out, ev.Event+" "+ev.Key+"="+jsonString(ev.Value))
		} else {
			out = append(out, ev.Event+" "+ev.Name+"="+jsonString(ev.Count))
		}
	}
	sort.Strings(out)
	return out
}

// jsonString is v in JSON.
func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
