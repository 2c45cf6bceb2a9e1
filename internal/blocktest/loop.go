//go:build linux

package blocktest

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Mount is a filesystem mounted from a file through a loop device.
type Mount struct {
	// Dir is the mount point.
	Dir string
	// Dev is the loop device.
	Dev string
}

// MountFile attaches a new loop device to the file name and mounts it, as
// fsys, at the directory dir. Mounting an image recovers its journal.
func MountFile(fsys FS, name, dir string) (*Mount, error) {
	out, err := exec.Command("losetup", "--find", "--show", name).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("losetup %s: %v: %s", name, err, strings.TrimSpace(string(out)))
	}
	m := &Mount{Dev: strings.TrimSpace(string(out))}
	args := []string{"-t", fsys.Type}
	if fsys.Options != "" {
		args = append(args, "-o", fsys.Options)
	}
	if err := run(append(append([]string{"mount"}, args...), m.Dev, dir)...); err != nil {
		return nil, errors.Join(err, m.detach())
	}
	m.Dir = dir
	return m, nil
}

// Unmount unmounts the filesystem and detaches the loop device. It is safe
// to call again: what is already undone is skipped. A mount point that
// stays busy is detached lazily, so that cleanup after a failure always
// ends.
func (m *Mount) Unmount() error {
	if m == nil {
		return nil
	}
	var errs []error
	if m.Dir != "" {
		err := umount(m.Dir)
		if err != nil {
			errs = append(errs, err, run("umount", "-l", m.Dir))
		}
		m.Dir = ""
	}
	errs = append(errs, m.detach())
	return errors.Join(errs...)
}

func (m *Mount) detach() error {
	if m.Dev == "" {
		return nil
	}
	err := run("losetup", "-d", m.Dev)
	m.Dev = ""
	return err
}

// umount unmounts dir, retrying a few times while it is busy (a process
// that was just killed may still hold a file open for a moment).
func umount(dir string) error {
	var err error
	for i := 0; i < 20; i++ {
		if err = run("umount", dir); err == nil || !strings.Contains(err.Error(), "busy") {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}
