package http

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// TestDescribeHTTP gives git's fatal lines for the client's failures,
// however they were wrapped.
func TestDescribeHTTP(t *testing.T) {
	const u = "https://h/r"
	parse := "Couldn't parse CURLOPT_RESOLVE entry 'h'"
	slow := "Operation too slow. Less than 10 bytes/sec transferred the last 2 seconds"
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&transferError{code: 90, msg: errPinMismatch.Error(), initial: true},
			"unable to access 'https://h/r' with http.pinnedPubkey configuration: SSL: public key does not match pinned public key"},
		{&transferError{code: 90, msg: errPinMismatch.Error()}, "RPC failed; curl 90 SSL: public key does not match pinned public key"},
		{&url.Error{Op: "Get", URL: u, Err: &transferError{code: 49, msg: parse, initial: true}}, "unable to access 'https://h/r': " + parse},
		{&url.Error{Op: "Get", URL: u, Err: &transferError{code: 28, msg: slow, initial: true}}, "unable to access 'https://h/r': " + slow},
		{&url.Error{Op: "Post", URL: u, Err: &transferError{code: 28, msg: slow}}, "RPC failed; curl 28 " + slow},
		{fmt.Errorf("unpacking: %w", fmt.Errorf("reading: %w", &transferError{code: 28, msg: slow})), "RPC failed; curl 28 " + slow},
		{&url.Error{Op: "Get", URL: u, Err: &refusal{"http.proxyAuthMethod", "why"}}, "unsupported setting http.proxyAuthMethod: why"},
	} {
		if got, _ := transport.Describe(tc.err, u); got != tc.want {
			t.Errorf("%v:\n got %s\nwant %s", tc.err, got, tc.want)
		}
	}
	var log Log
	log.Add(&transferError{code: 28, msg: slow})
	log.Add(&transferError{code: 90, msg: errPinMismatch.Error()})
	if got, _ := log.Describe(u); got != "RPC failed; curl 28 "+slow {
		t.Errorf("logged failure: %s", got)
	}
}
