package http

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	nethttp "net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/git-durable/git-durable/internal/repo"
)

// cookieJar is git's http.cookieFile: curl's cookie engine, on whenever the
// setting is (even empty: then with no file), which keeps the cookies the
// server sets for the rest of the session, and starts with the cookies of
// the file, in the Netscape format curl reads ("domain, subdomains, path,
// secure, expiry, name, value" on a line, tab-separated; #HttpOnly_ before
// the domain) or as Set-Cookie header lines with a Domain. The file is only
// read, as git reads it (http.saveCookies, which makes curl write it back,
// is not honoured). nil where the setting is not set.
func cookieJar(hc config, env lookupFunc, now time.Time) (nethttp.CookieJar, error) {
	e, ok := hc.get("cookieFile")
	if !ok {
		return nil, nil
	}
	jar, err := newCurlJar()
	if err != nil {
		return nil, err
	}
	if e.Value == "" {
		return jar, nil
	}
	name, err := repo.ExpandPath(e.Value, env.get)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return jar, nil // curl starts with no cookies then
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read http.cookieFile '%s': %v", e.Value, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if u, c, ok := parseCookieLine(sc.Text(), now); ok {
			jar.SetCookies(u, []*nethttp.Cookie{c})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cannot read http.cookieFile '%s': %v", e.Value, err)
	}
	return jar, nil
}

// curlJar keeps cookies as curl does: a secure cookie goes over https, or
// over plain http only to localhost, 127.0.0.1 and ::1 (curl's rule), not
// to every loopback address and *.localhost name as Go's jar, which
// browsers follow, would send it. Go's jar does not say which of the
// cookies it returns are secure, so those live in a jar of their own.
type curlJar struct{ plain, secure *cookiejar.Jar }

func newCurlJar() (*curlJar, error) {
	plain, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	secure, err := cookiejar.New(nil)
	return &curlJar{plain: plain, secure: secure}, err
}

// SetCookies keeps cookies as set for u, each in its jar.
func (j *curlJar) SetCookies(u *url.URL, cookies []*nethttp.Cookie) {
	for _, c := range cookies {
		if c.Secure {
			j.secure.SetCookies(u, []*nethttp.Cookie{c})
		} else {
			j.plain.SetCookies(u, []*nethttp.Cookie{c})
		}
	}
}

// Cookies returns the cookies to send to u.
func (j *curlJar) Cookies(u *url.URL) []*nethttp.Cookie {
	cs := j.plain.Cookies(u)
	if strings.EqualFold(u.Scheme, "https") || curlSecureHost(u.Hostname()) {
		as := *u
		as.Scheme = "https" // Go's jar keeps them from http://[::1]
		cs = append(cs, j.secure.Cookies(&as)...)
	}
	return cs
}

// curlSecureHost reports whether curl sends secure cookies to host over
// plain http.
func curlSecureHost(host string) bool {
	return strings.EqualFold(host, "localhost") || host == "127.0.0.1" || host == "::1"
}

// parseCookieLine reads one line of a cookie file: the cookie and a URL it
// belongs to, or ok false for a comment, a blank, a line curl would not
// take, or an expired cookie.
func parseCookieLine(line string, now time.Time) (*url.URL, *nethttp.Cookie, bool) {
	line = strings.TrimRight(line, "\r")
	if h, ok := strings.CutPrefix(line, "Set-Cookie:"); ok {
		cs := (&nethttp.Response{Header: nethttp.Header{"Set-Cookie": {strings.TrimSpace(h)}}}).Cookies()
		if len(cs) != 1 || cs[0].Domain == "" {
			return nil, nil, false // no host to send it to
		}
		c := cs[0]
		scheme := "http"
		if c.Secure {
			scheme = "https"
		}
		return &url.URL{Scheme: scheme, Host: strings.TrimPrefix(c.Domain, "."), Path: c.Path}, c, true
	}
	httpOnly := false
	if rest, ok := strings.CutPrefix(line, "#HttpOnly_"); ok {
		line, httpOnly = rest, true
	}
	if line == "" || strings.HasPrefix(line, "#") {
		return nil, nil, false
	}
	f := strings.Split(line, "\t")
	if len(f) == 6 {
		f = append(f, "") // a cookie without a value
	}
	if len(f) != 7 {
		return nil, nil, false
	}
	domain, sub, path, secure, expiry, name, value := f[0], f[1], f[2], f[3], f[4], f[5], f[6]
	exp, err := strconv.ParseInt(expiry, 10, 64)
	if err != nil || domain == "" || name == "" {
		return nil, nil, false
	}
	c := &nethttp.Cookie{Name: name, Value: value, Path: path, Secure: strings.EqualFold(secure, "TRUE"), HttpOnly: httpOnly}
	if exp != 0 {
		c.Expires = time.Unix(exp, 0)
		if !c.Expires.After(now) {
			return nil, nil, false
		}
	}
	host := strings.TrimPrefix(domain, ".")
	if strings.EqualFold(sub, "TRUE") {
		c.Domain = host // for its subdomains too; else for the host alone
	}
	scheme := "http"
	if c.Secure {
		scheme = "https"
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 address, as a URL holds it
	}
	return &url.URL{Scheme: scheme, Host: host, Path: path}, c, true
}
