package batch

import (
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

// TestFullSyncUnsupported: only the errors that say the full flush is not
// supported let a plain fsync stand in for it; a real I/O error does not.
func TestFullSyncUnsupported(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{syscall.ENOTSUP, true},
		{syscall.EOPNOTSUPP, true},
		{syscall.EINVAL, true},
		{syscall.ENOTTY, true},
		{syscall.ENOSYS, true},
		{&fs.PathError{Op: "fcntl", Path: "x", Err: syscall.ENOTSUP}, true},
		{syscall.EIO, false},
		{&fs.PathError{Op: "fcntl", Path: "x", Err: syscall.EIO}, false},
		{syscall.ENOSPC, false},
		{syscall.EROFS, false},
		{syscall.EBADF, false},
		{syscall.EINTR, false},
		{fmt.Errorf("not an errno"), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := fullSyncUnsupported(tt.err); got != tt.want {
			t.Errorf("%v: %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestFullSync: an I/O error of the full flush is returned and no fsync
// stands in for it; an unsupported full flush is replaced by fsync, whose
// own error is returned; interrupted calls are retried.
func TestFullSync(t *testing.T) {
	tests := []struct {
		name        string
		full, plain []error // the results of successive calls
		want        error
		plainCalls  int
	}{
		{"full flush", []error{nil}, nil, nil, 0},
		{"I/O error", []error{syscall.EIO}, nil, syscall.EIO, 0},
		{"no space", []error{syscall.ENOSPC}, nil, syscall.ENOSPC, 0},
		{"unsupported", []error{syscall.ENOTSUP}, []error{nil}, nil, 1},
		{"unsupported, fsync fails", []error{syscall.EINVAL}, []error{syscall.EIO}, syscall.EIO, 1},
		{"interrupted", []error{syscall.EINTR, syscall.EINTR, nil}, nil, nil, 0},
		{"interrupted, then I/O error", []error{syscall.EINTR, syscall.EIO}, nil, syscall.EIO, 0},
		{"interrupted fsync", []error{syscall.ENOTTY}, []error{syscall.EINTR, nil}, nil, 2},
	}
	for _, tt := range tests {
		fulls, plains := 0, 0
		call := func(results []error, n *int) func() error {
			return func() error {
				*n++
				if *n > len(results) {
					t.Fatalf("%s: %d calls, want %d", tt.name, *n, len(results))
				}
				return results[*n-1]
			}
		}
		err := fullSync(call(tt.full, &fulls), call(tt.plain, &plains))
		if err != tt.want || plains != tt.plainCalls || fulls != len(tt.full) {
			t.Errorf("%s: %v after %d full and %d plain calls, want %v after %d and %d",
				tt.name, err, fulls, plains, tt.want, len(tt.full), tt.plainCalls)
		}
	}
}
