//go:build linux

package blocktest

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Session is a recorded filesystem mounted for a test: fsys made in an
// image, served through a Recorder, attached to a loop device and mounted.
type Session struct {
	// FS is the recorded filesystem.
	FS FS
	// Root is where it is mounted.
	Root string
	// Rec records the device's writes and flushes.
	Rec *Recorder

	mount *Mount
	once  sync.Once
	err   error
}

// Skip returns why a recorded filesystem cannot run here ("" when it
// can): not root, no /dev/fuse, or a tool of fsys missing.
func Skip(fsys FS) string {
	if os.Geteuid() != 0 {
		return "block record/replay needs root (loop devices, FUSE and mount)"
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return "no /dev/fuse: " + err.Error()
	}
	if err := fsys.Tools(); err != nil {
		return err.Error()
	}
	return ""
}

// Start makes fsys, serves it through a Recorder and mounts it; recording
// begins with the freshly made filesystem. It skips the test, with the
// reason, where the machine does not allow it (see Skip, and a FUSE, loop
// or mount step that fails). t.Cleanup unmounts the filesystem, detaches
// the loop device and stops the daemon, even when the test fails.
func Start(t testing.TB, fsys FS) *Session {
	t.Helper()
	if why := Skip(fsys); why != "" {
		t.Skip(why)
	}
	work := t.TempDir()
	image := filepath.Join(work, "mkfs.img")
	if err := fsys.Make(image); err != nil {
		t.Fatalf("making %s: %v", fsys.Type, err)
	}
	disk, err := LoadDisk(image)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(image)
	s := &Session{FS: fsys, Root: filepath.Join(work, "mnt")}
	fuseDir := filepath.Join(work, "fuse")
	for _, d := range []string{s.Root, fuseDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.Rec, err = Serve(fuseDir, disk)
	if err != nil {
		t.Skipf("cannot serve the recording FUSE filesystem: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stopping the recorded %s: %v", fsys.Type, err)
		}
	})
	s.mount, err = MountFile(fsys, s.Rec.Path(), s.Root)
	if err != nil {
		t.Skipf("cannot loop-mount %s on the FUSE file: %v", fsys.Type, err)
	}
	return s
}

// Stop unmounts the filesystem (which flushes it), detaches the loop
// device and stops the daemon; the Recorder's log is then complete. It may
// be called more than once.
func (s *Session) Stop() error {
	s.once.Do(func() {
		err := s.mount.Unmount()
		if s.Rec != nil {
			err = errors.Join(err, s.Rec.Close())
		}
		s.err = err
	})
	return s.err
}

// MountScratch makes fsys in an image file (not recorded; in /dev/shm when
// it exists, so that only the device's flushes are slow, not its writes)
// and mounts it through a loop device; it returns the mount point. It
// skips like Start, and t.Cleanup unmounts the filesystem, detaches the
// device and removes the image.
func MountScratch(t testing.TB, fsys FS) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a loop-mounted filesystem needs root")
	}
	if err := fsys.Tools(); err != nil {
		t.Skip(err)
	}
	root := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	shm := ""
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		shm = "/dev/shm"
	}
	img, err := os.CreateTemp(shm, "blockrec-*.img")
	if err != nil {
		t.Fatal(err)
	}
	image := img.Name()
	img.Close()
	t.Cleanup(func() { os.Remove(image) })
	if err := fsys.Make(image); err != nil {
		t.Fatalf("making %s: %v", fsys.Type, err)
	}
	m, err := MountFile(fsys, image, root)
	if err != nil {
		t.Skipf("cannot loop-mount %s: %v", fsys.Type, err)
	}
	t.Cleanup(func() {
		if err := m.Unmount(); err != nil {
			t.Errorf("unmounting %s: %v", root, err)
		}
	})
	return root
}
