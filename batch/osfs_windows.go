package batch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

var procNtFlushBuffersFileEx = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtFlushBuffersFileEx")

// flushFileDataOnly is FLUSH_FLAGS_FILE_DATA_ONLY: write the data out
// without a metadata update or a device cache flush.
const flushFileDataOnly = 0x1

// noWriteout is empty: this system has a writeout-only sync.
const noWriteout = ""

// writeout is git's FSYNC_WRITEOUT_ONLY on Windows (compat/win32/flush.c).
func writeout(f *os.File) error {
	if procNtFlushBuffersFileEx.Find() != nil {
		return fmt.Errorf("NtFlushBuffersFileEx: %w", errors.ErrUnsupported)
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var status uintptr
	err = rc.Control(func(fd uintptr) {
		var iosb windows.IO_STATUS_BLOCK
		status, _, _ = procNtFlushBuffersFileEx.Call(fd, flushFileDataOnly, 0, 0, uintptr(unsafe.Pointer(&iosb)))
	})
	if err != nil {
		return err
	}
	if status != 0 {
		return &os.PathError{Op: "NtFlushBuffersFileEx", Path: f.Name(), Err: windows.NTStatus(status)}
	}
	return nil
}

// flushPath flushes the volume's journal the way git's batch mode does on
// Windows: object files are read-only and cannot be opened for writing, so a
// dummy file beside name is created, flushed and removed.
func flushPath(name string) error {
	f, err := os.CreateTemp(filepath.Dir(name), "bulk_fsync_")
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if rerr := os.Remove(f.Name()); err == nil {
		err = rerr
	}
	return err
}

// flushDir: directories cannot be flushed on Windows; NTFS journals names.
func flushDir(name string) error { return flushPath(filepath.Join(name, "x")) }

// kindAt is the Kind of the filesystem name is on, by its name.
func kindAt(name string) Kind { return KindOf(fsName(name)) }

// fsName is the name of the filesystem name is on; "" when unknown.
func fsName(name string) string {
	root := filepath.VolumeName(name) + `\`
	var buf [64]uint16
	p, err := windows.UTF16PtrFromString(root)
	if err != nil {
		return ""
	}
	if windows.GetVolumeInformation(p, nil, 0, nil, nil, nil, &buf[0], uint32(len(buf))) != nil {
		return ""
	}
	return windows.UTF16ToString(buf[:])
}
