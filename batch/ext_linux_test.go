package batch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// mountExt makes an ext4 with the mkfs arguments args in a file image,
// mounts it through a loop device with the options opts and returns the
// mount point. It skips where that needs what the machine lacks.
func mountExt(t *testing.T, opts string, args ...string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a loop mount needs root")
	}
	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 32<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", append(append([]string{"-q", "-F"}, args...), img)...).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v\n%s", err, out)
	}
	mo := "loop"
	if opts != "" {
		mo += "," + opts
	}
	if out, err := exec.Command("mount", "-o", mo, img, mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot loop-mount: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount: %v\n%s", err, out)
		}
	})
	return mnt
}

// TestExtKind mounts the ext4 configurations the policy tells apart and
// checks the name it gives each (as root, and as nobody, who cannot read
// the device), and that each source of fastCommit alone tells fast
// commits apart: the superblock read from the device, and the kernel's
// EXT4_IOC_GET_TUNE_SB_PARAM, which needs no privilege.
func TestExtKind(t *testing.T) {
	tests := []struct {
		opts string
		args []string
		want string
		fc   bool
	}{
		{"", nil, "ext4", false},
		{"", []string{"-O", "fast_commit"}, "ext4 with fast_commit", true},
		{"data=journal", nil, "ext4", false},
		{"data=writeback", nil, "ext4", false},
		// The kernel takes journal_async_commit only without data=ordered.
		{"data=writeback,journal_async_commit", nil, "ext4 with journal_async_commit", false},
		{"data=writeback,journal_async_commit", []string{"-O", "fast_commit"}, "ext4 with journal_async_commit and fast_commit", true},
		{"nobarrier", nil, "ext4 with nobarrier", false},
		{"", []string{"-O", "^has_journal"}, "ext4 without a journal", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append(tt.args, tt.opts), " "), func(t *testing.T) {
			mnt := mountExt(t, tt.opts, tt.args...)
			if got := kindAt(mnt).Name; got != tt.want {
				t.Errorf("kindAt = %q, want %q", got, tt.want)
			}
			if got := kindAsNobody(t, mnt); got != tt.want {
				t.Errorf("kindAt as nobody = %q, want %q", got, tt.want)
			}
			var st unix.Stat_t
			if err := unix.Stat(mnt, &st); err != nil {
				t.Fatal(err)
			}
			dev, err := blockDevice(st.Dev)
			if err != nil {
				t.Fatal(err)
			}
			sb, err := readSuperblock(filepath.Join("/dev", dev), st.Dev)
			if err != nil {
				t.Fatal(err)
			}
			if on, ok := superblockFastCommit(sb); !ok || on != tt.fc {
				t.Errorf("from the superblock: fast commits %v (ok %v), want %v", on, ok, tt.fc)
			}
			switch compat, err := tunedCompat(mnt); {
			case errors.Is(err, unix.ENOTTY):
				t.Logf("EXT4_IOC_GET_TUNE_SB_PARAM: %v (a kernel before 6.18)", err)
			case err != nil:
				t.Errorf("EXT4_IOC_GET_TUNE_SB_PARAM: %v", err)
			case compatFastCommitOn(compat) != tt.fc:
				t.Errorf("from the kernel: features %#x, fast commits %v, want %v", compat, compatFastCommitOn(compat), tt.fc)
			}
		})
	}
}

// kindEnv makes the test binary print the name of the kind of the
// directory it names and exit, instead of running the tests
// (kindAsNobody).
const kindEnv = "BATCH_TEST_FSKIND_OF"

func TestMain(m *testing.M) {
	if dir := os.Getenv(kindEnv); dir != "" {
		fmt.Print(kindAt(dir).Name)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// kindAsNobody returns the name of the kind of dir as the user nobody sees
// it: the test binary run again as nobody, in a child process.
func kindAsNobody(t *testing.T, dir string) string {
	t.Helper()
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Skip(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// nobody must reach the mount point and run the test binary.
	for d := filepath.Dir(dir); d != "/"; d = filepath.Dir(d) {
		if strings.HasPrefix(d, os.TempDir()+"/") {
			os.Chmod(d, 0o755)
		}
	}
	exe := filepath.Join(t.TempDir(), "batch.test")
	if err := copyExecutable(exe); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(exe), 0o755)
	cmd := exec.Command(exe)
	cmd.Env = []string{kindEnv + "=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s as nobody: %v", exe, err)
	}
	return string(out)
}

// copyExecutable copies the running test binary to name, where nobody
// can run it (go test builds it in a directory only its user can read),
// with mode 0755 whatever the umask.
func copyExecutable(name string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	if err := os.WriteFile(name, b, 0o755); err != nil {
		return err
	}
	return os.Chmod(name, 0o755)
}

// TestFastCommitUnknown: where neither the mount options, the kernel nor
// a block device tell (here /dev/null, a character device with no ext4
// ioctl, and a device node that does not exist), fast commits are not
// known either way, so that the policy commits by directory.
func TestFastCommitUnknown(t *testing.T) {
	var st unix.Stat_t
	if err := unix.Stat("/dev/null", &st); err != nil {
		t.Skip(err)
	}
	for _, dev := range []string{"null", "no-such-device"} {
		if on, known := fastCommit([]string{"rw", "data=ordered"}, "/dev/null", dev, st.Rdev); known || on {
			t.Errorf("%s: fast commits %v, known %v", dev, on, known)
		}
	}
	if on, known := fastCommit([]string{"rw", "fc_debug_force"}, "/dev/null", "no-such-device", 0); !on || !known {
		t.Errorf("fc_debug_force among the options: fast commits %v, known %v", on, known)
	}
	if k := (Ext{FastCommit: FastCommitUnknown}).Kind(); !k.Sound || !k.DirCommit || k.Name != "ext4, fast_commit unknown" {
		t.Errorf("unknown fast commits: %+v", k)
	}
}

func TestSuperblockFastCommit(t *testing.T) {
	sb := func(magic uint16, compat uint32) []byte {
		b := make([]byte, superblockSize)
		binary.LittleEndian.PutUint16(b[sbMagicAt:], magic)
		binary.LittleEndian.PutUint32(b[sbFeatureCompatAt:], compat)
		return b
	}
	tests := []struct {
		name   string
		sb     []byte
		on, ok bool
	}{
		{"journal and fast_commit", sb(extMagic, compatHasJournal|compatFastCommit|0x38), true, true},
		{"journal only", sb(extMagic, compatHasJournal|0x38), false, true},
		{"fast_commit without a journal", sb(extMagic, compatFastCommit), false, true},
		{"not ext", sb(0x1234, compatHasJournal|compatFastCommit), false, false},
		{"short", sb(extMagic, compatHasJournal|compatFastCommit)[:sbFeatureCompatAt+3], false, false},
	}
	for _, tt := range tests {
		if on, ok := superblockFastCommit(tt.sb); on != tt.on || ok != tt.ok {
			t.Errorf("%s: on %v ok %v, want %v %v", tt.name, on, ok, tt.on, tt.ok)
		}
	}
}
