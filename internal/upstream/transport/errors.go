package transport

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"

	"github.com/git-durable/git-durable/internal/mask"
)

// Describer is an error that says itself in git's words: Describe is the
// line git prints after "fatal: " for it, naming the upstream by url
// (without credentials).
type Describer interface {
	error
	Describe(url string) string
}

// Describe is git's fatal line for a failure of the upstream or of the way
// to it: an error of the project's that describes itself (a redirect not
// followed, an HTTP status, missing or wrong credentials, a repository not
// found, a transfer curl would have failed, a refused setting, a cut
// connection), a certificate or a connection that failed, or an ERR line.
func Describe(err error, url string) (string, bool) {
	var (
		d  Describer
		ne *net.OpError
		el *pktline.ErrorLine
		cv *tls.CertificateVerificationError
	)
	switch {
	case errors.As(err, &d):
		return d.Describe(url), true
	case errors.As(err, &cv):
		return fmt.Sprintf("unable to access '%s': SSL certificate problem: %s", url, mask.OneLine(cv.Err.Error())), true
	case errors.As(err, &ne):
		return fmt.Sprintf("unable to access '%s': %s", url, netReason(ne)), true
	case errors.As(err, &el):
		return fmt.Sprintf("remote error: %s", strings.TrimSpace(el.Text)), true
	}
	return "", false
}

// netReason is the system's word for a failed connection.
func netReason(ne *net.OpError) string {
	if ne.Err != nil {
		return mask.OneLine(ne.Err.Error())
	}
	return mask.OneLine(ne.Error())
}

// failure is a failure of an upstream that git names in its own words:
// text is the error, words git's line with the upstream's URL for its %s.
type failure struct{ text, words string }

func (f *failure) Error() string { return f.text }

// Describe is git's line for the failure.
func (f *failure) Describe(url string) string { return fmt.Sprintf(f.words, url) }

// The failures of an upstream that git names in its own words.
var (
	// ErrAuthFailed: wrong credentials, or none to give.
	ErrAuthFailed error = &failure{"authentication failed", "Authentication failed for '%s'"}
	// ErrAuthRequired: a 401.
	ErrAuthRequired error = &failure{"authentication required", "Authentication failed for '%s' (no credentials)"}
	// ErrForbidden: a 403.
	ErrForbidden error = &failure{"authorization failed", "Authentication failed for '%s'"}
	// ErrNotFound: no repository where the address says.
	ErrNotFound error = &failure{"repository not found", "repository '%s' not found"}
)
