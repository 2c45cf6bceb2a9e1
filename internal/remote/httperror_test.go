package remote

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestDescribeHTTP gives git's fatal lines for the client's failures,
// however go-git wrapped them.
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
		{plumbing.NewUnexpectedError(&url.Error{Op: "Post", URL: u, Err: &transferError{code: 28, msg: slow}}), "RPC failed; curl 28 " + slow},
		{&packError{err: fmt.Errorf("reading: %w", &transferError{code: 28, msg: slow})}, "RPC failed; curl 28 " + slow},
		{plumbing.NewUnexpectedError(&url.Error{Op: "Get", URL: u, Err: &refusal{"http.proxyAuthMethod", "why"}}), "unsupported setting http.proxyAuthMethod: why"},
	} {
		if got := describe(tc.err, u); got != tc.want {
			t.Errorf("%v:\n got %s\nwant %s", tc.err, got, tc.want)
		}
	}
	h := &helper{url: u, red: &redactor{}, cut: &transferLog{}}
	h.cut.add(&transferError{code: 28, msg: slow})
	h.cut.add(&transferError{code: 90, msg: errPinMismatch.Error()})
	if got := h.describe(fmt.Errorf("error decoding upload-pack response: %s", slow)); got != "RPC failed; curl 28 "+slow {
		t.Errorf("logged failure: %s", got)
	}
}
