package transport

import (
	"strings"
	"testing"
)

func TestParseEndpoint(t *testing.T) {
	for _, tc := range []struct {
		addr, proto, host, path, user string
		port                          int
	}{
		{"/srv/r.git", "file", "", "/srv/r.git", "", 0},
		{"file:///srv/r.git", "file", "", "/srv/r.git", "", 0},
		{"git://h/r.git", "git", "h", "/r.git", "", 0},
		{"git://127.0.0.1:9419/r", "git", "127.0.0.1", "/r", "", 9419},
		{"https://u:p@h/o/r.git", "https", "h", "/o/r.git", "u", 0},
		{"ssh://git@h:2222/o/r.git", "ssh", "h", "/o/r.git", "git", 2222},
		{"git@h:o/r.git", "ssh", "h", "o/r.git", "git", 22},
		{"durable://h/o/r.git", "https", "h", "/o/r.git", "", 0},
	} {
		ep, err := parseEndpoint(tc.addr)
		if err != nil {
			t.Errorf("%s: %v", tc.addr, err)
			continue
		}
		if string(ep.Scheme) != tc.proto || ep.Host != tc.host || ep.Path != tc.path || ep.User != tc.user || ep.Port != tc.port {
			t.Errorf("%s: got %+v", tc.addr, ep)
		}
	}
	for _, bad := range []string{"", "ftp://h/r", "svn://h/r", "http:///r", "https://"} {
		if _, err := parseEndpoint(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestAnonymize(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p@h/o/r.git":     "https://h/o/r.git",
		"https://tok@h:8443/r?x=@y": "https://h:8443/r?x=@y",
		"git://h/r":                 "git://h/r",
		"u@h:o/r.git":               "h:o/r.git",
		"/srv/a@b/r.git":            "/srv/a@b/r.git",
		"durable://u:p@h/r":         "durable://h/r",
	} {
		if got := Anonymize(in); got != want {
			t.Errorf("Anonymize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedactor(t *testing.T) {
	r := &Redactor{}
	r.Add("p@ss word/1")
	r.Add("")
	msg := "Get \"https://u:p%40ss%20word%2F1@h/\": failed; header p@ss word/1; query p%40ss+word%2F1"
	got := r.Scrub(msg)
	if strings.Contains(got, "ss word") || strings.Contains(got, "ss%20word") || strings.Contains(got, "ss+word") {
		t.Fatalf("secret left in %q", got)
	}
	if r.Scrub("nothing here") != "nothing here" {
		t.Fatal("scrub changed a clean message")
	}
}

// TestCheckAuthority: the addresses git refuses or cannot reach for their
// port or their user information are refused in git's words before
// anything connects; what git takes is taken.
func TestCheckAuthority(t *testing.T) {
	for addr, want := range map[string]string{
		"http://127.0.0.1:70000/x":                "unable to access 'http://127.0.0.1:70000/x': URL using bad/illegal format or missing URL",
		"https://h:0/x":                           "unable to access 'https://h:0/x': URL using bad/illegal format or missing URL",
		"http://h:99999999999999999999/x":         "unable to access 'http://h:99999999999999999999/x': URL using bad/illegal format or missing URL",
		"http://h:8a/x":                           "unable to access 'http://h:8a/x': URL using bad/illegal format or missing URL",
		"http://u:p@w@127.0.0.1:1/x":              "unable to access 'http://127.0.0.1:1/x': URL using bad/illegal format or missing URL",
		"durable://u@v@h/x":                       "unable to access 'https://h/x': URL using bad/illegal format or missing URL",
		"git://127.0.0.1:70000/x":                 "unable to look up 127.0.0.1:70000 (port 9418) (Name or service not known)",
		"git://127.0.0.1:0/x":                     "unable to look up 127.0.0.1:0 (port 9418) (Name or service not known)",
		"git://u@v@127.0.0.1:1/x":                 "unable to look up v@127.0.0.1 (port 1) (Name or service not known)",
		"git://[::1]:65536/x":                     "unable to look up [::1]:65536 (port 9418) (Name or service not known)",
		"ssh://127.0.0.1:0/x":                     "ssh: Bad port '0'",
		"ssh://127.0.0.1:70000/x":                 "ssh: Could not resolve hostname 127.0.0.1:70000: Name or service not known",
		"ssh://u@v@127.0.0.1/x":                   "strange hostname 'v@127.0.0.1' blocked",
		"u@v@127.0.0.1:x":                         "strange hostname 'v@127.0.0.1' blocked",
		"http://127.0.0.1:65535/x":                "",
		"http://127.0.0.1:042309/x":               "", // curl and git read leading zeros
		"https://h:00000000443/x":                 "",
		"https://h:000/x":                         "unable to access 'https://h:000/x': URL using bad/illegal format or missing URL",
		"http://u%40v:p%40w@127.0.0.1:1/x?a=@b#@": "",
		"git://[::1]:9418/x":                      "",
		"git://[::1]/x":                           "",
		"ssh://git@h:22/x":                        "",
		"git@h:x@y":                               "",
		"/srv/a@b@c:x":                            "",
		"file:///srv/a@b@c:0/x":                   "",
	} {
		_, err := ParseAddress(addr)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", addr, err)
		case want != "" && (err == nil || err.Error() != want):
			t.Errorf("%s: %v, want %q", addr, err, want)
		}
	}
}
