package upstream

import (
	"errors"
	"fmt"
	"strings"
)

// errEmptyRemote is an advertisement without a ref: nothing to fetch.
var errEmptyRemote = errors.New("remote repository is empty")

// ErrJunk means that data followed the pack's trailer in the answer: git's
// index-pack words for a pack file with bytes after its end. Nothing of it
// is used, and the fetch fails.
var ErrJunk error = junk{}

type junk struct{}

func (junk) Error() string { return "pack has junk at the end" }

// Describe is git's line for a pack with junk at its end.
func (junk) Describe(url string) string { return fmt.Sprintf("bad pack from '%s': %s", url, ErrJunk) }

// RemoteError is git's line for an error the upstream sent on side-band
// channel 3, which go-git's demultiplexer gives as "unexpected error: …".
func RemoteError(err error) (string, bool) {
	if rest, ok := strings.CutPrefix(err.Error(), "unexpected error: "); ok {
		return "remote error: " + strings.TrimSpace(rest), true
	}
	return "", false
}
