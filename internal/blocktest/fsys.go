//go:build linux

package blocktest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// FS describes a kernel filesystem to record: how to make it, mount it and
// check an image of it.
type FS struct {
	// Type is the mount type: "ext4", "xfs", "btrfs".
	Type string
	// Size is the size of the device in bytes.
	Size int64
	// Mkfs is the command that makes the filesystem; the image path is
	// appended.
	Mkfs []string
	// Options are the mount options ("" for the defaults).
	Options string
	// Fsck is the read-only check of an unmounted image; the image path is
	// appended. It must exit 0 on a consistent filesystem.
	Fsck []string
	// Repair, when set, is run on each crash image before it is mounted,
	// as a boot does for a filesystem without a journal (e2fsck -fy); the
	// image path is appended. An exit code of 4 or more is a failure.
	Repair []string
	// Rescue, when set, is what an administrator runs on an image that
	// does not mount, or that Fsck finds inconsistent (e2fsck -fy); the
	// image path is appended, and the exit codes are read as for Repair.
	// The image stays unclean (Verdict.OK fails); the rescue tells what
	// would be left of it (Verdict.Recovered).
	Rescue []string
}

// Ext4 returns an ext4 of size bytes: no discard, no lazy initialization
// (so that no background thread writes while a program runs), and the
// default data=ordered journal.
func Ext4(size int64) FS {
	return FS{
		Type: "ext4", Size: size,
		Mkfs: []string{"mkfs.ext4", "-q", "-F", "-b", "4096",
			"-E", "nodiscard,lazy_itable_init=0,lazy_journal_init=0"},
		Fsck:   []string{"e2fsck", "-f", "-n"},
		Rescue: []string{"e2fsck", "-f", "-y"},
	}
}

// XFS returns an xfs of size bytes (at least 300 MB), made without discard.
func XFS(size int64) FS {
	return FS{
		Type: "xfs", Size: size,
		Mkfs: []string{"mkfs.xfs", "-q", "-f", "-K"},
		Fsck: []string{"xfs_repair", "-n", "-f"},
	}
}

// Btrfs returns a btrfs of size bytes (at least 114 MB), made without
// discard.
func Btrfs(size int64) FS {
	return FS{
		Type: "btrfs", Size: size,
		Mkfs: []string{"mkfs.btrfs", "-q", "-f", "--nodiscard"},
		Fsck: []string{"btrfs", "check", "--readonly"},
	}
}

// Tools returns an error naming the first program fsys needs that is not
// installed.
func (fsys FS) Tools() error {
	for _, p := range []string{fsys.Mkfs[0], fsys.Fsck[0], "losetup", "mount", "umount"} {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%s is not installed (%v)", p, err)
		}
	}
	return nil
}

// Make creates the file image of fsys.Size bytes and makes the filesystem
// in it.
func (fsys FS) Make(image string) error {
	f, err := os.OpenFile(image, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = f.Truncate(fsys.Size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return run(append(fsys.Mkfs, image)...)
}

// Check runs the filesystem's read-only checker on the unmounted image
// and returns an error with its output unless it found nothing to fix.
func (fsys FS) Check(image string) error {
	return run(append(fsys.Fsck, image)...)
}

// repair runs the Repair command on image, if there is one.
func (fsys FS) repair(image string) error { return fix(fsys.Repair, image) }

// fix runs the command cmd on image, if there is one. Exit codes below 4
// mean "clean" or "errors corrected" (e2fsck's convention).
func fix(cmd []string, image string) error {
	if len(cmd) == 0 {
		return nil
	}
	args := append(append([]string{}, cmd...), image)
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() < 4 {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// run runs a command and returns an error that holds its output when it
// fails.
func run(args ...string) error {
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}
