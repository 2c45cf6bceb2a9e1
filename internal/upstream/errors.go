package upstream

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"

	"github.com/git-durable/git-durable/internal/mask"
)

// DescribeTransfer is git's fatal line for a failure of the HTTP client's
// own: a setting it refuses, or a transfer curl would have failed (also
// when a read of the pack was cut short by it).
func DescribeTransfer(err error, url string) (string, bool) {
	return describeHTTP(err, url)
}

// Describe is git's fatal line for a failure of the upstream or of the way
// to it: a redirect not followed, an HTTP status, missing or wrong
// credentials, a repository not found, a certificate or a connection that
// failed, an ERR line or a side-band error. url names the upstream
// (without credentials).
func Describe(err error, url string) (string, bool) {
	var (
		ne *net.OpError
		el *pktline.ErrorLine
		cv *tls.CertificateVerificationError
	)
	if re, ok := asRedirect(err); ok {
		// git's words: curl did not follow, the redirect is an error status.
		if re.initial {
			return fmt.Sprintf("unable to access '%s': %s", url, re), true
		}
		return fmt.Sprintf("RPC failed; HTTP %d: %s", re.code, re), true
	}
	if he, ok := asStatus(err); ok {
		// curl's words for the status, as git prints them.
		msg := he.Error()
		if he.method == http.MethodPost {
			return fmt.Sprintf("RPC failed; HTTP %d: %s", he.code, msg), true
		}
		return fmt.Sprintf("unable to access '%s': %s", url, msg), true
	}
	switch {
	case errors.Is(err, errAuthFailed), errors.Is(err, errForbidden):
		return fmt.Sprintf("Authentication failed for '%s'", url), true
	case errors.Is(err, errAuthRequired):
		return fmt.Sprintf("Authentication failed for '%s' (no credentials)", url), true
	case errors.As(err, new(*CutError)):
		return "early EOF", true
	case errors.Is(err, ErrJunk):
		return fmt.Sprintf("bad pack from '%s': %s", url, ErrJunk), true
	case errors.Is(err, errNotFound):
		return fmt.Sprintf("repository '%s' not found", url), true
	case errors.As(err, &cv):
		return fmt.Sprintf("unable to access '%s': SSL certificate problem: %s", url, mask.OneLine(cv.Err.Error())), true
	case errors.As(err, &ne):
		return fmt.Sprintf("unable to access '%s': %s", url, netReason(ne)), true
	case errors.As(err, &el):
		return fmt.Sprintf("remote error: %s", strings.TrimSpace(el.Text)), true
	}
	return "", false
}

// RemoteError is git's line for an error the upstream sent on side-band
// channel 3, which go-git's demultiplexer gives as "unexpected error: …".
func RemoteError(err error) (string, bool) {
	if rest, ok := strings.CutPrefix(err.Error(), "unexpected error: "); ok {
		return "remote error: " + strings.TrimSpace(rest), true
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
