//go:build !linux

package remote

import "io"

// watchHangup does not watch outside Linux: there the helper learns that
// git is gone from its parent's exit (cli.HelperMain), or when it next
// reads or writes the dialogue.
func watchHangup(io.Reader, func()) (pending func() bool, stop func(), ok bool) {
	return nil, nil, false
}
