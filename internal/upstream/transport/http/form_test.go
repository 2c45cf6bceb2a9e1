package http

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/internal/upstream/transport/urlmatch"
)

// TestFormOf: the form an address is matched in against http.<url>.*
// keys, made from the parsed address, is the one its URL written out with
// the user (escaped) and without the password normalizes to.
func TestFormOf(t *testing.T) {
	for _, addr := range []string{
		"https://h/r", "HTTPS://H:443/r", "http://u:p@h:8080/a/./b/../c?q#f", "http://u%20v@[::1]/r",
		"https://h", "http://h/%7euser/a%2fb", "http://h/a b", "http://h/../r", "durable://h/x",
	} {
		a, err := transport.ParseAddress(addr)
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		written := string(a.Scheme) + "://"
		if a.User != "" {
			written += url.User(a.User).String() + "@"
		}
		written += a.Host
		if a.Port != 0 {
			written += ":" + strconv.Itoa(a.Port)
		}
		want, wantOK := urlmatch.Parse(written+a.Path, transport.DefaultPort)
		if got, ok := formOf(a); got != want || ok != wantOK {
			t.Errorf("%s: %+v %v, want %+v %v", addr, got, ok, want, wantOK)
		}
	}
}
