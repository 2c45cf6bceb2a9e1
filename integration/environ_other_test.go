//go:build !linux

package integration

// setUmask leaves the umask as it is: the tests that need it set (those
// that run a command as another user) are Linux's (environ_linux_test.go).
func setUmask() {}

// dispositionsWrapped is never a wrapper here: the tests that set the
// signal dispositions of a command are Linux's (environ_linux_test.go).
func dispositionsWrapped() (code int, ok bool) { return 0, false }
