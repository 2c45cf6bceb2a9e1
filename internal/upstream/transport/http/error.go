package http

import (
	"errors"
	"fmt"
	nethttp "net/http"
	"strings"
	"sync"

	"github.com/git-durable/git-durable/internal/upstream/transport"
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

// Describe is git's fatal line for the failure: remote-curl's for the
// refs, the "RPC failed" line of a later request.
func (e *transferError) Describe(url string) string {
	switch {
	case e.initial && e.code == 90:
		return fmt.Sprintf("unable to access '%s' with http.pinnedPubkey configuration: %s", url, e.msg)
	case e.initial:
		return fmt.Sprintf("unable to access '%s': %s", url, e.msg)
	}
	return fmt.Sprintf("RPC failed; curl %d %s", e.code, e.msg)
}

// initialRequest reports whether req asks for the refs.
func initialRequest(req *nethttp.Request) bool {
	return req.Method == nethttp.MethodGet && strings.HasSuffix(req.URL.Path, "/info/refs")
}

// curlErrors names the failures of the transport below that curl has a
// code for: a server whose key is not the pinned one (CURLE 90).
type curlErrors struct {
	next nethttp.RoundTripper
	cut  *Log
}

func (c curlErrors) RoundTrip(req *nethttp.Request) (*nethttp.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil && errors.Is(err, errPinMismatch) {
		e := &transferError{code: 90, msg: errPinMismatch.Error(), initial: initialRequest(req)}
		c.cut.Add(e)
		return nil, e
	}
	return resp, err
}

// refusal is a setting the helper cannot honour as git does; it refuses
// to run rather than go on without it.
type refusal struct {
	key, why string
}

func (r *refusal) Error() string {
	return fmt.Sprintf("unsupported setting %s: %s", r.key, r.why)
}

// Describe is the refusal itself: git has no words for it.
func (r *refusal) Describe(string) string { return r.Error() }

// Log keeps the first request the client failed as curl would have: that
// failure is why a session fails, whatever becomes of the error on its way
// up (a decoder may quote a read error as text).
type Log struct {
	mu    sync.Mutex
	first transport.Describer
}

// Add records d, unless a failure came before.
func (l *Log) Add(d transport.Describer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == nil {
		l.first = d
	}
}

// Describe is git's fatal line for the failure recorded, if any.
func (l *Log) Describe(url string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.first == nil {
		return "", false
	}
	return l.first.Describe(url), true
}
