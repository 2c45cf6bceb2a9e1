//go:build linux

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// asUserEnv, in the environment of this test binary, makes it run the
// command of its arguments as the user nobody instead of the tests
// (asUser): "nobody" as it is, "nobody-old-kernel" on what looks to
// git-unpack-durable like a kernel before 6.18, where no unprivileged
// call tells whether an ext4 takes fast commits.
const asUserEnv = "GIT_DURABLE_TEST_AS"

// The ids of the user nobody and its group (Debian's nogroup).
const nobodyID = 65534

// wrapped runs the command of os.Args as asUserEnv asks, and reports its
// exit code; ok is false when this process is not such a wrapper.
func wrapped() (code int, ok bool) {
	as := os.Getenv(asUserEnv)
	if as == "" {
		return 0, false
	}
	fail := func(err error) (int, bool) {
		fmt.Fprintf(os.Stderr, "%s=%s: %v\n", asUserEnv, as, err)
		return 127, true
	}
	if len(os.Args) < 2 {
		return fail(fmt.Errorf("no command"))
	}
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		return fail(err)
	}
	if err := dropToNobody(); err != nil {
		return fail(err)
	}
	if as == "nobody-old-kernel" {
		if err := refuseTuneIoctl(); err != nil {
			return fail(err)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, asUserEnv+"=") {
			env = append(env, kv)
		}
	}
	return fail(unix.Exec(path, os.Args[1:], env))
}

// dropToNobody makes every thread of this process the user nobody, with
// no supplementary group (so not the disk group either).
func dropToNobody() error {
	if err := syscall.Setgroups(nil); err != nil {
		return err
	}
	if err := syscall.Setgid(nobodyID); err != nil {
		return err
	}
	return syscall.Setuid(nobodyID)
}

// refuseTuneIoctl installs a seccomp filter, kept across exec, that
// answers EXT4_IOC_GET_TUNE_SB_PARAM (either size of its request) with
// ENOTTY, as a kernel before 6.18 does: with no access to the device and
// no fc_debug_force among the mount options (a plain ext4), fast commits
// are then unknown, the path every unprivileged user of such a kernel
// runs. Everything else is allowed.
func refuseTuneIoctl() error {
	arch, ok := map[string]uint32{"amd64": 0xC000003E, "arm64": 0xC00000B7}[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	const (
		ldAbs  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq    = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret    = unix.BPF_RET | unix.BPF_K
		allow  = 0x7fff0000      // SECCOMP_RET_ALLOW
		enotty = 0x00050000 | 25 // SECCOMP_RET_ERRNO | ENOTTY
	)
	// struct seccomp_data: nr at 0, arch at 4, args[1] (low half) at 24.
	filter := []unix.SockFilter{
		{Code: ldAbs, K: 4},
		{Code: jeq, K: arch, Jt: 1},
		{Code: ret, K: allow},
		{Code: ldAbs, K: 0},
		{Code: jeq, K: unix.SYS_IOCTL, Jt: 1},
		{Code: ret, K: allow},
		{Code: ldAbs, K: 24},
		{Code: jeq, K: 0x80E8662D, Jt: 1},        // _IOR('f', 45, 232 bytes)
		{Code: jeq, K: 0x80E4662D, Jt: 0, Jf: 1}, // _IOR('f', 45, 228 bytes)
		{Code: ret, K: enotty},
		{Code: ret, K: allow},
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	const setModeFilter, tsync = 1, 1 // SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, setModeFilter, tsync, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}

// asUser returns the command line that runs name with args as the user
// as asks (see asUserEnv), and the environment for it, after making what
// that user needs reachable: the built binaries, each directory of the
// paths reach (below the temporary directory, which the tests' own are
// made in, mode 0700), and the tree of each path of own, which becomes
// nobody's (git refuses a repository another user owns).
func asUser(t *testing.T, as string, env []string, reach, own []string, name string, args ...string) (string, []string, []string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("running as nobody needs root")
	}
	for _, kv := range env {
		if home, ok := strings.CutPrefix(kv, "HOME="); ok {
			reach = append(reach, home)
		}
	}
	for _, p := range append(append(reach, own...), binDir) {
		for d := p; strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				if err := os.Chmod(d, st.Mode().Perm()|0o055); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, p := range own {
		err := filepath.Walk(p, func(path string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, nobodyID, nobodyID)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self, append([]string{name}, args...), append(append([]string{}, env...), asUserEnv+"="+as)
}
