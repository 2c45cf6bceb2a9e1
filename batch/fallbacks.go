package batch

// The decisions of the system-specific files that do not need their
// system: they are kept free of build tags, so that their tests run on
// every system (the Linux machines of make test among them).

import (
	"errors"
	"syscall"
)

// fullSync runs full, a full flush that may be unsupported (macOS's
// F_FULLFSYNC), and plain (fsync) in its place only where full says it
// is not supported; any other error of full is returned as it is. Either
// call is retried while it is interrupted.
func fullSync(full, plain func() error) error {
	err := retryEINTR(full)
	if err == nil || !fullSyncUnsupported(err) {
		return err
	}
	return retryEINTR(plain)
}

func retryEINTR(call func() error) error {
	for {
		if err := call(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// fullSyncUnsupported reports whether a failed full flush (macOS's
// F_FULLFSYNC) says only that the file's filesystem or device cannot do
// it, so that a plain fsync may stand in: ENOTSUP or EOPNOTSUPP (an SMB or
// FUSE mount), EINVAL or ENOTTY (a file or driver without the call),
// ENOSYS. Any other error, EIO first, is the flush failing and must reach
// the caller: the flush that makes a batch durable must not be retried
// into a success. EINTR is not an answer either; the caller retries the
// call.
func fullSyncUnsupported(err error) bool {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return false
	}
	for _, e := range unsupported {
		if errno == e {
			return true
		}
	}
	return false
}

// unsupported are the errors of fullSyncUnsupported; ENOTSUP and
// EOPNOTSUPP are one number on Linux and two on macOS.
var unsupported = [...]syscall.Errno{syscall.ENOTSUP, syscall.EOPNOTSUPP, syscall.EINVAL, syscall.ENOTTY, syscall.ENOSYS}

// The file attributes a rename onto a read-only file looks at (Windows'
// FILE_ATTRIBUTE_READONLY and FILE_ATTRIBUTE_DIRECTORY).
const (
	attrReadOnly  = 0x1
	attrDirectory = 0x10
)

// renameOverReadOnly is a rename that may replace a read-only file, as
// Git for Windows' rename does: MoveFileEx refuses to replace a read-only
// target (access denied), and object files are created read-only, so the
// repair of a broken object would fail. When rename is denied and the
// target is a read-only file, the attribute is cleared and the rename
// tried once more; if that fails too, the attribute is put back. denied
// tells an access-denied error; attrs and setAttrs read and write the
// target's attributes.
func renameOverReadOnly(rename func() error, denied func(error) bool, attrs func() (uint32, error), setAttrs func(uint32) error) error {
	err := rename()
	if err == nil || !denied(err) {
		return err
	}
	a, aerr := attrs()
	if aerr != nil || a&attrReadOnly == 0 || a&attrDirectory != 0 {
		return err
	}
	if setAttrs(a&^attrReadOnly) != nil {
		return err
	}
	if err = rename(); err != nil {
		setAttrs(a)
	}
	return err
}
