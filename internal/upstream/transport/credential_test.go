package transport

import (
	"errors"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCheckCredentialURL: git's parts of a URL, each decoded; one that
// holds a newline is refused with git's words (credential.c
// check_url_component), a carriage return or NUL with the same words.
func TestCheckCredentialURL(t *testing.T) {
	for _, tc := range []struct {
		url, component string // "": accepted
		char           byte
	}{
		{"https://h/o/r.git", "", 0},
		{"https://u:p@h:8443/o/r.git?x=%41#y", "", 0},
		{"https://h/a%25%0b%7f", "", 0}, // other control characters reach no line break
		{"https://h/a%0", "", 0},
		{"http://x%0ahost=victim.example@h/r", "username", '\n'},
		{"http://x%0Dhost=victim.example@h/r", "username", '\r'},
		{"http://x%00@h/r", "username", 0},
		{"http://u:p%0aw@h/r", "password", '\n'},
		{"http://u:p:q%0d@h/r", "password", '\r'},  // the password runs from the first ':'
		{"http://u@h%0a@x/r", "host", '\n'},        // the user ends at the first '@'
		{"http://h%0a.example:80/r", "host", '\n'}, // git leaves what is before the ':' undecoded; we do not
		{"http://h/r%0ahost=victim.example", "path", '\n'},
		{"http://h?q=%0a", "path", '\n'}, // the query is part of git's path
		{"http://h#%00", "path", 0},
		{"http://h/a@b%0a/r", "path", '\n'}, // an '@' after the '/' is the path's
	} {
		err := CheckCredentialURL(tc.url)
		var ce *CredentialURLError
		switch {
		case tc.component == "" && err != nil:
			t.Errorf("%s: %v", tc.url, err)
		case tc.component == "":
		case !errors.As(err, &ce):
			t.Errorf("%s: %v, want a refusal of its %s", tc.url, err, tc.component)
		case ce.component != tc.component || ce.char != tc.char:
			t.Errorf("%s: %s", tc.url, ce.Warning())
		}
	}
	err := CheckCredentialURL("http://alice:pw%0a@h/r")
	if err.Error() != "credential url cannot be parsed: http://h/r" ||
		err.(*CredentialURLError).Warning() != "url contains a newline in its password component: http://h/r" {
		t.Errorf("git's words, without the password: %v", err)
	}
}

// TestCredentialInput: one key=value line per attribute and the blank line
// that ends the request; a value that would end a line is refused, and so
// is a key the helper never writes.
func TestCredentialInput(t *testing.T) {
	in, err := credentialInput([]credentialAttr{{"url", "https://h/r"}, {"username", "a b=c"}})
	if err != nil || string(in) != "url=https://h/r\nusername=a b=c\n\n" {
		t.Errorf("%q, %v", in, err)
	}
	for _, bad := range []credentialAttr{{"username", "x\nhost=v"}, {"password", "p\r"}, {"path", "a\x00b"}, {"host=v\nurl", "x"}, {"quit", "1"}} {
		if in, err := credentialInput([]credentialAttr{{"url", "https://h/r"}, bad}); err == nil {
			t.Errorf("%+v: %q", bad, in)
		}
	}
	c := parseCredential([]byte("protocol=https\nhost=h\nusername=u\npassword=p=q\nquit=1\nurl=https://v/\nnonsense\n"))
	if c.User != "u" || c.Password != "p=q" || len(c.attrs) != 4 {
		t.Errorf("%+v", c)
	}
}

// credentialLine is a line a request to git credential may hold.
var credentialLine = regexp.MustCompile(`^([a-z_]+)=([^\r\n\x00]*)$`)

// checkCredentialLines fails unless in is one key=value line of a key of
// keys each, at most once, then the blank line; it returns the values.
func checkCredentialLines(t *testing.T, in []byte, keys ...string) map[string]string {
	t.Helper()
	got := map[string]string{}
	if string(in) == "\n" {
		return got
	}
	body, ok := strings.CutSuffix(string(in), "\n\n")
	if !ok {
		t.Fatalf("no blank line ends %q", in)
	}
	for _, l := range strings.Split(body, "\n") {
		m := credentialLine.FindStringSubmatch(l)
		if m == nil || !slices.Contains(keys, m[1]) {
			t.Fatalf("the line %q of %q is not one of %v", l, in, keys)
		}
		if _, dup := got[m[1]]; dup {
			t.Fatalf("%s twice in %q", m[1], in)
		}
		got[m[1]] = m[2]
	}
	return got
}

// credentialHost is the host git credential finds in a URL, split the
// plain way.
func credentialHost(t *testing.T, u string) string {
	_, rest, _ := strings.Cut(u, "://")
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	if at := strings.IndexByte(rest, '@'); at >= 0 {
		t.Fatalf("userinfo in the credential URL %q", u)
	}
	host, err := url.PathUnescape(rest)
	if err != nil {
		t.Fatalf("%q: %v", u, err)
	}
	return host
}

// FuzzCredential: whatever the URL (and the path a redirect moves it to),
// what git credential fill is asked is the url line and the username line
// alone, each once, and the host git credential finds in that url is the
// host the helper connects to; whatever fill answers, what approve and
// reject are given is lines of the keys fill may answer.
func FuzzCredential(f *testing.F) {
	f.Add("http://x%0ahost=victim.example@server/repo", "", "protocol=http\nhost=server\nusername=u\npassword=p\n")
	f.Add("https://u:p%0d@h:8443/r.git", "/x\nhost=v/r", "password=a\rb\n")
	f.Add("durable://h/r", "/a%0a", "")
	f.Add("http://[::1]:80/r", "/r", "username=u\x00host=v\npassword=p\n")
	f.Fuzz(func(t *testing.T, addr, moved, answer string) {
		ep, err := parseEndpoint(addr)
		if err != nil || checkEndpoint(addr) != nil || !ep.Scheme.Web() {
			return
		}
		for i, path := range []string{ep.Path, moved} {
			if i == 1 {
				// Where go-git moves the endpoint: a request's decoded
				// path without "/info/refs"; the helper checks it again.
				if path != "" && path[0] != '/' {
					path = "/" + path
				}
				ep.Path = path
				if CheckCredentialURL(ep.CredentialURL()) != nil {
					break
				}
			}
			in, err := fillRequest(ep, ep.User)
			if err != nil {
				continue // refused
			}
			got := checkCredentialLines(t, in, "url", "username")
			if got["username"] != ep.User {
				t.Fatalf("username=%q for the user %q", got["username"], ep.User)
			}
			if h, want := credentialHost(t, got["url"]), ep.Origin().Host; h != want {
				t.Fatalf("git credential is asked about %q (%q), the helper connects to %q", h, in, want)
			}
		}
		if in, err := credentialInput(parseCredential([]byte(answer)).attrs); err == nil {
			checkCredentialLines(t, in, "protocol", "host", "path", "username", "password", "password_expiry_utc", "oauth_refresh_token")
		}
	})
}
