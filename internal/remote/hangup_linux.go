package remote

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// watchHangup calls hungUp once the other end of in, a pipe or a socket,
// has closed, without reading from it: poll asked for no event reports
// only a hang-up or an error. It watches a duplicate of the descriptor,
// which closing in does not change. pending tells whether input not read
// yet waits in the pipe; stop ends the watch. ok is false when in is not a
// pipe or a socket.
func watchHangup(in io.Reader, hungUp func()) (pending func() bool, stop func(), ok bool) {
	sc, isConn := in.(syscall.Conn)
	if !isConn {
		return nil, nil, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, nil, false
	}
	fd := -1
	rc.Control(func(orig uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(orig), &st) != nil || (st.Mode&unix.S_IFMT != unix.S_IFIFO && st.Mode&unix.S_IFMT != unix.S_IFSOCK) {
			return
		}
		fd, _ = unix.FcntlInt(orig, unix.F_DUPFD_CLOEXEC, 0)
	})
	if fd < 0 {
		return nil, nil, false
	}
	wake, woken, err := os.Pipe()
	if err != nil {
		unix.Close(fd)
		return nil, nil, false
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fds := []unix.PollFd{{Fd: int32(fd)}, {Fd: int32(wake.Fd()), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, -1)
			switch {
			case err == unix.EINTR:
				continue
			case err != nil || fds[1].Revents != 0:
				return
			case fds[0].Revents != 0:
				hungUp()
				return
			}
		}
	}()
	pending = func() bool {
		n, err := unix.IoctlGetInt(fd, unix.TIOCINQ) // FIONREAD
		return err == nil && n > 0
	}
	stop = func() {
		woken.Close()
		<-done
		wake.Close()
		unix.Close(fd)
	}
	return pending, stop, true
}
