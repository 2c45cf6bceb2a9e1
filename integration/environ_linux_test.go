//go:build linux

package integration

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// What the suite sets for itself, whatever it was started in.
//
// The umask: git and the binaries make files and directories with the
// umask's permissions, and a test that runs a command as the user nobody
// (asUser) needs the built binaries and its HOME readable by others, as
// the usual 022 leaves them; under a umask of 077 nobody could not even
// execute git-unpack-durable.
//
// The dispositions of SIGHUP and SIGINT of a command a test starts. On
// exec, a signal a process ignores stays ignored, and one it handles
// returns to its default. nohup starts its command with SIGHUP ignored,
// and a shell without job control (sh -c '… &', a script) starts a
// background job with SIGINT and SIGQUIT ignored. The Go runtime of this
// test binary handles every other signal, so its children start with
// those at their default (and unblocked) — but it keeps SIGHUP and SIGINT
// ignored where it found them so, and its children inherit that, as the
// binaries under test rightly keep a signal they found ignored (as git
// does). A test that sends either signal starts its command through
// withDispositions.

// suiteUmask is the umask the tests run under.
const suiteUmask = 0o022

// setUmask sets suiteUmask for this process and every command it starts.
func setUmask() { syscall.Umask(suiteUmask) }

// dispositionsEnv, in the environment of this test binary, makes it a
// wrapper (dispositionsWrapped) that sets the dispositions its value
// names, "ignore:" and the numbers of the signals to ignore, comma
// separated (none: both SIGHUP and SIGINT at their default), then
// executes the command of its arguments, path and argv.
const dispositionsEnv = "GIT_DURABLE_TEST_SIGNALS"

// withDispositions makes cmd, not yet started, start with SIGHUP and
// SIGINT at their default dispositions, but for the signals of ignored,
// which it starts with ignored (as nohup, or a shell's background job,
// starts a command): cmd then runs this test binary as a wrapper, which
// sets them and executes cmd's program in its place (the same process).
func withDispositions(t testing.TB, cmd *exec.Cmd, ignored ...syscall.Signal) {
	t.Helper()
	if cmd.Err != nil {
		t.Fatal(cmd.Err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var nums []string
	for _, s := range ignored {
		nums = append(nums, strconv.Itoa(int(s)))
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(append([]string{}, env...), dispositionsEnv+"=ignore:"+strings.Join(nums, ","))
	cmd.Args = append([]string{self, cmd.Path}, cmd.Args...)
	cmd.Path = self
}

// dispositionsWrapped runs the command of os.Args as dispositionsEnv
// asks, and reports its exit code (only when it could not be executed);
// ok is false when this process is not such a wrapper. A signal handled
// here through signal.Notify is at its default in the command executed.
func dispositionsWrapped() (code int, ok bool) {
	v, set := os.LookupEnv(dispositionsEnv)
	if !set {
		return 0, false
	}
	fail := func(err error) (int, bool) {
		fmt.Fprintf(os.Stderr, "%s=%s: %v\n", dispositionsEnv, v, err)
		return 127, true
	}
	list, valid := strings.CutPrefix(v, "ignore:")
	if !valid || len(os.Args) < 3 {
		return fail(errors.New("want ignore:<signal numbers> and a command (path, then argv)"))
	}
	ignore := map[syscall.Signal]bool{}
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return fail(err)
		}
		ignore[syscall.Signal(n)] = true
	}
	for _, s := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if !ignore[s] {
			signal.Notify(make(chan os.Signal, 1), s)
		}
	}
	for s := range ignore {
		signal.Ignore(s)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, dispositionsEnv+"=") {
			env = append(env, kv)
		}
	}
	return fail(unix.Exec(os.Args[1], os.Args[2:], env))
}

// signalIgnored reports whether the process pid ignores sig, from the
// SigIgn mask of /proc/<pid>/status.
func signalIgnored(t testing.TB, pid int, sig syscall.Signal) bool {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if hex, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			if err != nil {
				t.Fatalf("/proc/%d/status: %q: %v", pid, line, err)
			}
			return mask&(1<<(uint(sig)-1)) != 0
		}
	}
	t.Fatalf("/proc/%d/status has no SigIgn line", pid)
	return false
}
