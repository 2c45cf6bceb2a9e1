package batch

import (
	"errors"
	"testing"
)

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
