package http

import (
	nethttp "net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/repo"
)

// TestCookieJar reads a cookie file as curl does: Netscape lines (host
// only, or with subdomains; secure; #HttpOnly_; expired ones dropped) and
// Set-Cookie lines with a Domain; each cookie goes only where it belongs.
func TestCookieJar(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	file := filepath.Join(t.TempDir(), "cookies.txt")
	content := "# Netscape HTTP Cookie File\n" +
		"git.example.com\tFALSE\t/\tTRUE\t0\to\tsession\n" +
		".example.com\tTRUE\t/\tFALSE\t2100000000\tall\tsub\n" +
		"#HttpOnly_git.example.com\tFALSE\t/repo\tTRUE\t2100000000\tho\tonly\n" +
		"git.example.com\tFALSE\t/\tTRUE\t1000\told\texpired\n" +
		"Set-Cookie: hdr=1; Domain=other.example.org; Path=/\n" +
		"garbage line\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	jar, err := cookieJar(testConfig(repo.Config{{Key: "http.cookiefile", Value: file}}, "https://git.example.com/repo"), envOf(), now)
	if err != nil || jar == nil {
		t.Fatalf("jar %v, %v", jar, err)
	}
	names := func(raw string) map[string]string {
		u, _ := url.Parse(raw)
		got := map[string]string{}
		for _, c := range jar.Cookies(u) {
			got[c.Name] = c.Value
		}
		return got
	}
	if got := names("https://git.example.com/repo/info/refs"); len(got) != 3 || got["o"] != "session" || got["all"] != "sub" || got["ho"] != "only" {
		t.Errorf("https://git.example.com/repo: %v", got)
	}
	if got := names("http://git.example.com/x"); len(got) != 1 || got["all"] != "sub" {
		t.Errorf("http://git.example.com/x (no secure cookies, not under /repo): %v", got)
	}
	if got := names("https://other.example.org/"); got["hdr"] != "1" {
		t.Errorf("Set-Cookie line: %v", got)
	}
	if got := names("https://elsewhere.net/"); len(got) != 0 {
		t.Errorf("cookies sent elsewhere: %v", got)
	}
	for _, v := range []string{"", filepath.Join(t.TempDir(), "missing")} {
		jar, err := cookieJar(testConfig(repo.Config{{Key: "http.cookiefile", Value: v}}, "https://h/r"), envOf(), now)
		if err != nil || jar == nil {
			t.Errorf("cookieFile=%q: %v %v, want an empty jar", v, jar, err)
		}
	}
	if jar, err := cookieJar(testConfig(nil, "https://h/r"), envOf(), now); jar != nil || err != nil {
		t.Errorf("no cookieFile: %v %v", jar, err)
	}
}

// TestCookieJarSecureOverHTTP: a secure cookie goes over plain http only
// to localhost, 127.0.0.1 and ::1, as curl sends it, not to the other
// loopback addresses and *.localhost names Go's jar would send it to.
func TestCookieJarSecureOverHTTP(t *testing.T) {
	hosts := []string{"localhost", "127.0.0.1", "::1", "127.0.0.2", "git.localhost", "example.com"}
	var content string
	for _, h := range hosts {
		content += h + "\tFALSE\t/\tTRUE\t0\ts\tsecret\n" + h + "\tFALSE\t/\tFALSE\t0\tp\tplain\n"
	}
	file := filepath.Join(t.TempDir(), "cookies.txt")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	jar, err := cookieJar(testConfig(repo.Config{{Key: "http.cookiefile", Value: file}}, "http://h/r"), envOf(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		for _, scheme := range []string{"http", "https"} {
			u := &url.URL{Scheme: scheme, Host: h, Path: "/r"}
			if strings.Contains(h, ":") {
				u.Host = "[" + h + "]"
			}
			got := map[string]bool{}
			for _, c := range jar.Cookies(u) {
				got[c.Name] = true
			}
			want := scheme == "https" || h == "localhost" || h == "127.0.0.1" || h == "::1"
			if got["s"] != want || !got["p"] {
				t.Errorf("%s: secure cookie sent %v, want %v; plain sent %v", u, got["s"], want, got["p"])
			}
		}
	}
	// And cookies the server sets in the session.
	u := &url.URL{Scheme: "http", Host: "127.0.0.2", Path: "/"}
	jar.SetCookies(u, []*nethttp.Cookie{{Name: "set", Value: "1", Secure: true}})
	for _, c := range jar.Cookies(u) {
		if c.Name == "set" {
			t.Errorf("a secure cookie set in the session goes to %s", u)
		}
	}
	if len(jar.Cookies(&url.URL{Scheme: "https", Host: "127.0.0.2", Path: "/"})) != 3 {
		t.Errorf("https://127.0.0.2: %v", jar.Cookies(&url.URL{Scheme: "https", Host: "127.0.0.2", Path: "/"}))
	}
}
