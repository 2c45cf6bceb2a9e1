//go:build !linux

package integration

// wrapped is never a wrapper here: the tests that run as another user
// are Linux's (asuser_linux_test.go).
func wrapped() (code int, ok bool) { return 0, false }
