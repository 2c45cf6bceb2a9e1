package remote

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// transferError is a request curl would have failed with one of its
// errors: its CURLE_… number and message, and whether it was the first
// request of the session (GET …/info/refs), whose failure git reports as
// "unable to access" rather than as a failed RPC.
type transferError struct {
	code    int
	msg     string
	initial bool
}

func (e *transferError) Error() string { return e.msg }

// describe is git's fatal line for the failure: remote-curl's for the
// refs, the "RPC failed" line of a later request.
func (e *transferError) describe(url string) string {
	switch {
	case e.initial && e.code == 90:
		return fmt.Sprintf("unable to access '%s' with http.pinnedPubkey configuration: %s", url, e.msg)
	case e.initial:
		return fmt.Sprintf("unable to access '%s': %s", url, e.msg)
	}
	return fmt.Sprintf("RPC failed; curl %d %s", e.code, e.msg)
}

// initialRequest reports whether req asks for the refs.
func initialRequest(req *http.Request) bool {
	return req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/info/refs")
}

// describeHTTP is the fatal line for a failure of the HTTP client's own
// (a refused setting, a transfer curl would have failed), found also
// inside go-git's UnexpectedError, which does not unwrap.
func describeHTTP(err error, url string) (string, bool) {
	var ue *plumbing.UnexpectedError
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var (
		te *transferError
		re *refusal
	)
	switch {
	case errors.As(err, &te):
		return te.describe(url), true
	case errors.As(err, &re):
		return re.Error(), true
	}
	return "", false
}

// curlErrors names the failures of the transport below that curl has a
// code for: a server whose key is not the pinned one (CURLE 90).
type curlErrors struct {
	next http.RoundTripper
	cut  *transferLog
}

func (c curlErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil && errors.Is(err, errPinMismatch) {
		return nil, c.cut.add(&transferError{code: 90, msg: errPinMismatch.Error(), initial: initialRequest(req)})
	}
	return resp, err
}

// transferLog keeps the first request the client failed as curl would:
// that failure is why the run fails, whatever go-git makes of the error
// (it quotes some read errors as text).
type transferLog struct {
	mu    sync.Mutex
	first *transferError
}

// add records e, unless a failure came before, and returns it.
func (l *transferLog) add(e *transferError) *transferError {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == nil {
		l.first = e
	}
	return e
}

// last is the failure recorded, or nil; a nil log has none.
func (l *transferLog) last() *transferError {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.first
}

// refusal is a setting the helper cannot honour as git does; it refuses
// to run rather than go on without it.
type refusal struct {
	key, why string
}

func (r *refusal) Error() string {
	return fmt.Sprintf("unsupported setting %s: %s", r.key, r.why)
}
