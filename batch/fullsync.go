package batch

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
