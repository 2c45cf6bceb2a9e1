//go:build !linux

package integration

// dispositionsWrapped is never a wrapper here: the tests that set the
// signal dispositions of a command are Linux's (environ_linux_test.go).
func dispositionsWrapped() (code int, ok bool) { return 0, false }
