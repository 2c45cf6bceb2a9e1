package batch

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
// checks the name it gives each, and that the superblock alone (as for a
// kernel that does not show fast commits among the mount options) tells
// fast commits apart.
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
			if got := fsKind(mnt); got != tt.want {
				t.Errorf("fsKind = %q, want %q", got, tt.want)
			}
			var st unix.Stat_t
			if err := unix.Stat(mnt, &st); err != nil {
				t.Fatal(err)
			}
			dev, err := blockDevice(st.Dev)
			if err != nil {
				t.Fatal(err)
			}
			if on, known := fastCommit(nil, dev, st.Dev); !known || on != tt.fc {
				t.Errorf("from the superblock: fast commits %v (known %v), want %v", on, known, tt.fc)
			}
		})
	}
}

// TestFastCommitUnknown: where neither the mount options nor a block
// device tell (here /dev/null, a character device, and a device node that
// does not exist), fast commits are not known either way, so that the
// policy commits by directory.
func TestFastCommitUnknown(t *testing.T) {
	var st unix.Stat_t
	if err := unix.Stat("/dev/null", &st); err != nil {
		t.Skip(err)
	}
	for _, dev := range []string{"null", "no-such-device"} {
		if on, known := fastCommit([]string{"rw", "data=ordered"}, dev, st.Rdev); known || on {
			t.Errorf("%s: fast commits %v, known %v", dev, on, known)
		}
	}
	if on, known := fastCommit([]string{"rw", "fc_debug_force"}, "no-such-device", 0); !on || !known {
		t.Errorf("fc_debug_force among the options: fast commits %v, known %v", on, known)
	}
	if k := KindOf("ext4, fast_commit unknown"); !k.Sound || !k.DirCommit {
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
