package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// journaled makes the runs' filesystem an ext4 with a journal when the
// scratch directory's is not one (the batch scheme needs it, and the
// unpacker falls back to fsync without it): an image file in dir, attached
// to a loop device with direct I/O — so that writes reach the disk rather
// than the page cache of the image file — formatted and mounted. It returns
// the mount point and a function that undoes it all. It needs root and
// losetup; without them it returns "" and the reason.
func journaled(dir string, size int64) (string, func(), error) {
	if os.Geteuid() != 0 {
		return "", nil, fmt.Errorf("not root")
	}
	img := filepath.Join(dir, "ext4.img")
	mnt := filepath.Join(dir, "mnt")
	f, err := os.Create(img)
	if err != nil {
		return "", nil, err
	}
	err = f.Truncate(size)
	f.Close()
	if err != nil {
		return "", nil, err
	}
	out, err := exec.Command("losetup", "--direct-io=on", "--find", "--show", img).Output()
	if err != nil {
		os.Remove(img)
		return "", nil, fmt.Errorf("losetup: %v", err)
	}
	dev := strings.TrimSpace(string(out))
	// Interrupted, a run may still hold files of the mount: it is
	// detached at once and let go when they are closed.
	forget := onSignal(func() {
		exec.Command("umount", "-l", mnt).Run()
		exec.Command("losetup", "-d", dev).Run()
	})
	undo := func() {
		exec.Command("umount", mnt).Run()
		exec.Command("losetup", "-d", dev).Run()
		forget()
		os.Remove(img)
		os.Remove(mnt)
	}
	for _, c := range [][]string{{"mkfs.ext4", "-q", "-F", dev}, {"mkdir", "-p", mnt}, {"mount", dev, mnt}} {
		if b, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			undo()
			return "", nil, fmt.Errorf("%s: %v: %s", c[0], err, b)
		}
	}
	return mnt, undo, nil
}
