package batch

import (
	"errors"
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

// TestRenameOverReadOnly: a rename refused because its target is a
// read-only file clears the attribute and succeeds on the retry; a retry
// that fails puts the attribute back; other refusals are not retried.
func TestRenameOverReadOnly(t *testing.T) {
	errDenied, errOther := errors.New("access denied"), errors.New("sharing violation")
	tests := []struct {
		name     string
		renames  []error // the results of successive renames
		attrs    uint32
		want     error
		finalAtt uint32 // the target's attributes at the end
	}{
		{"plain", []error{nil}, attrReadOnly, nil, attrReadOnly},
		{"read-only target", []error{errDenied, nil}, attrReadOnly | 0x20, nil, 0x20},
		{"retry fails", []error{errDenied, errOther}, attrReadOnly, errOther, attrReadOnly},
		{"writable target", []error{errDenied}, 0x20, errDenied, 0x20},
		{"directory", []error{errDenied}, attrReadOnly | attrDirectory, errDenied, attrReadOnly | attrDirectory},
		{"other error", []error{errOther}, attrReadOnly, errOther, attrReadOnly},
	}
	for _, tt := range tests {
		n, att := 0, tt.attrs
		rename := func() error {
			if n == len(tt.renames) {
				t.Fatalf("%s: rename %d times", tt.name, n+1)
			}
			if n == 1 && att&attrReadOnly != 0 {
				t.Fatalf("%s: retried with the target still read-only", tt.name)
			}
			n++
			return tt.renames[n-1]
		}
		err := renameOverReadOnly(rename, func(err error) bool { return err == errDenied },
			func() (uint32, error) { return att, nil }, func(a uint32) error { att = a; return nil })
		if err != tt.want || n != len(tt.renames) || att != tt.finalAtt {
			t.Errorf("%s: %v after %d renames, attributes %#x; want %v after %d, %#x",
				tt.name, err, n, att, tt.want, len(tt.renames), tt.finalAtt)
		}
	}
}
