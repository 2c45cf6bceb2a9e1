package http

import (
	"errors"
	nethttp "net/http"
	"reflect"
	"testing"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// hopFrom builds the redirect from the first request to url.
func hopFrom(t *testing.T, method, first, url string) (*nethttp.Request, []*nethttp.Request) {
	t.Helper()
	r0, _ := nethttp.NewRequest(method, first, nil)
	r0.Header.Set("Authorization", "Basic eA==")
	r0.Header.Set("X-A", "secret")
	req, _ := nethttp.NewRequest(nethttp.MethodGet, url, nil)
	req.Header = r0.Header.Clone()
	req.Response = &nethttp.Response{StatusCode: nethttp.StatusFound}
	return req, []*nethttp.Request{r0}
}

// TestRedirectPolicy checks http.followRedirects and what a hop to another
// origin leaves behind: an upgrade to https on the same host is another
// origin for curl, though go-git lets credentials follow it.
func TestRedirectPolicy(t *testing.T) {
	for _, tc := range []struct {
		follow, method, to string
		refused, kept      bool
	}{
		{"initial", "GET", "http://h/moved/info/refs", false, true},
		{"initial", "POST", "http://h/moved/git-upload-pack", true, false},
		{"true", "POST", "http://h/moved/git-upload-pack", false, true},
		{"false", "GET", "http://h/moved/info/refs", true, false},
		{"initial", "GET", "https://h/r/info/refs", false, false},
		{"initial", "GET", "http://h:8080/r/info/refs", false, false},
		{"initial", "GET", "http://other/r/info/refs", false, false},
	} {
		from := "http://h/r/info/refs"
		if tc.method == "POST" {
			from = "http://h/r/git-upload-pack"
		}
		req, via := hopFrom(t, tc.method, from, tc.to)
		err := (&redirectPolicy{follow: tc.follow, headers: []string{"X-A"}}).check(req, via)
		var re *redirectError
		if refused := errors.As(err, &re); refused != tc.refused {
			t.Errorf("%+v: error %v", tc, err)
			continue
		}
		if re != nil && (re.code != nethttp.StatusFound || re.initial != (tc.method == "GET")) {
			t.Errorf("%+v: %+v", tc, re)
		}
		if kept := req.Header.Get("Authorization") != "" && req.Header.Get("X-A") != ""; !tc.refused && kept != tc.kept {
			t.Errorf("%+v: headers kept %v: %v", tc, kept, req.Header)
		}
	}
}

// TestRedirectHops: no hop carries the Referer Go's client sets, and a hop
// to a port git would not connect to is refused before it is dialled.
func TestRedirectHops(t *testing.T) {
	for to, refused := range map[string]bool{
		"http://other/r/info/refs?token=x": false,
		"http://h:0/r/info/refs":           true,
		"http://h:70000/r/info/refs":       true,
		"http://h:65535/r/info/refs":       false,
	} {
		req, via := hopFrom(t, "GET", "http://h/r/info/refs?token=secret", to)
		req.Header.Set("Referer", via[0].URL.String())
		err := (&redirectPolicy{follow: "initial"}).check(req, via)
		if (err != nil) != refused {
			t.Errorf("%s: %v", to, err)
		}
		if r := req.Header.Get("Referer"); err == nil && r != "" {
			t.Errorf("%s: Referer %q", to, r)
		}
	}
}

// TestHTTPAuthOrigin checks that the headers and the password go only to
// their origin, and that credentials from git credential belong to the
// endpoint they were asked for.
func TestHTTPAuthOrigin(t *testing.T) {
	ep, err := transport.ParseAddress("http://u:p@a:8080/r")
	if err != nil {
		t.Fatal(err)
	}
	cfg := repo.Config{
		{Key: "http.extraheader", Value: "X-First: 1"},
		{Key: "http.http://a:8080/r.extraheader", Value: "X-Url: 2"},
		{Key: "http.extraheader", Value: "X-Less: 3"}, // less specific than the one before: skipped, as in git
		{Key: "http.http://b.extraheader", Value: "X-Other: 4"},
	}
	a, err := newAuth(newConfig(cfg, ep), ep, &transport.Redactor{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.headerNames(), []string{"X-First", "X-Url"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("headers %v, want %v", got, want)
	}
	for url, want := range map[string]bool{"http://a:8080/r/info/refs": true, "http://A:8080/x": true, "http://a/r": false, "https://a:8080/r": false, "http://b:8080/r": false} {
		r, _ := nethttp.NewRequest(nethttp.MethodGet, url, nil)
		a.SetAuth(r)
		if got := r.Header.Get("Authorization") != "" && r.Header.Get("X-Url") == "2"; got != want {
			t.Errorf("%s: credentials sent %v, want %v", url, got, want)
		}
	}
	b, _ := transport.ParseAddress("http://b/r")
	a.setBasic("v", "q", b)
	if user, pass := a.known(ep); user != "" || pass {
		t.Errorf("credentials for b are known for a: %q %v", user, pass)
	}
	r, _ := nethttp.NewRequest(nethttp.MethodGet, "http://b/r/info/refs", nil)
	a.SetAuth(r)
	if u, p, ok := r.BasicAuth(); !ok || u != "v" || p != "q" || r.Header.Get("X-Url") != "" {
		t.Errorf("b got %v", r.Header)
	}
}
