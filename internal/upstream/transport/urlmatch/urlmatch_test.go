package urlmatch

import "testing"

// ports is the default ports of the schemes the tests name.
func ports(scheme string) string {
	return map[string]string{"http": "80", "https": "443"}[scheme]
}

// TestParse: the normalization of urlmatch.c's url_normalize — scheme and
// host lower-cased, the default port dropped, unreserved escapes decoded
// and the others upper-cased, dot segments resolved — and what it refuses.
func TestParse(t *testing.T) {
	for in, want := range map[string]URL{
		"HTTPS://Example.COM:443/a/./b/../c": {Scheme: "https", Host: "example.com", Path: "/a/c"},
		"http://u%41@h:8080/%7euser/%2f?q#f": {Scheme: "http", User: "uA", HasUser: true, Host: "h", Port: "8080", Path: "/~user/%2F"},
		"http://h":                           {Scheme: "http", Host: "h", Path: "/"},
		"http://[::1]:80/r":                  {Scheme: "http", Host: "[::1]", Path: "/r"},
	} {
		if got, ok := Parse(in, ports); !ok || got != want {
			t.Errorf("%s: %+v %v, want %+v", in, got, ok, want)
		}
	}
	for _, in := range []string{"http://h:0/", "http://h:x/", "http://h/../x", "h/r", "1http://h/", "http:///r"} {
		if got, ok := Parse(in, ports); ok {
			t.Errorf("%s taken: %+v", in, got)
		}
	}
	if got, _ := Make("http", "u v", "H", "", "/a/./b?q"); got != (URL{Scheme: "http", User: "u%20v", HasUser: true, Host: "h", Path: "/a/b"}) {
		t.Errorf("Make: %+v", got)
	}
}

// TestMatch: a key's URL matches a target of the same scheme, user (when
// the key names one), host ("*" a label) and port, whose path it is a
// prefix of at a '/'; the longer host, then the longer path, then a user
// makes the more specific match.
func TestMatch(t *testing.T) {
	target, _ := Parse("http://u@git.example.com/org/repo.git", ports)
	score := func(key string) (Score, bool) {
		p, ok := Parse(key, ports)
		if !ok {
			t.Fatalf("%s not a URL", key)
		}
		return Match(target, p)
	}
	for _, key := range []string{"https://git.example.com", "http://v@git.example.com", "http://*.com", "http://git.example.com:8080", "http://git.example.com/org/re"} {
		if _, ok := score(key); ok {
			t.Errorf("%s matches", key)
		}
	}
	wild, ok1 := score("http://*.example.com")
	host, ok2 := score("http://git.example.com")
	path, ok3 := score("http://git.example.com/org")
	user, ok4 := score("http://u@git.example.com/org/")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		t.Fatalf("no match: %v %v %v %v", ok1, ok2, ok3, ok4)
	}
	if !wild.Less(host) || !host.Less(path) || !path.Less(user) || user.Less(path) {
		t.Errorf("order: %+v %+v %+v %+v", wild, host, path, user)
	}
}
