package http

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/internal/upstream/transport/urlmatch"
)

// urlmatchConfig is a global config whose http.<url>.<key> entries compete
// for the URLs of TestHTTPConfigMatchesGit.
var urlmatchConfig = [][2]string{
	{"http.k1", "plain"},
	{"http.https://example.com.k1", "host"},
	{"http.https://*.example.com.k1", "wild"},
	{"http.https://example.com/repo.k1", "path"},
	{"http.https://user@example.com.k1", "user"},
	{"http.https://example.com:8443.k1", "port"},
	{"http.http://example.com.k1", "http"},
	{"http.https://*.example.com/deep/path.k2", "wildpath"},
	{"http.https://aa.example.com.k2", "exacthost"},
	{"http.https://example.com.k3", "first"},
	{"http.https://example.com/.k3", "second"},
	{"http.https://u@example.com/a.k4", "userpath"},
	{"http.https://example.com/a.k4", "path"},
	{"http.https://example.com/a/b.k5", "deeper"},
	{"http.https://example.com/a/b/c.K5", "deepest"},
	{"http.https://example.com/A.k6", "case"},
	{"http.https://Example.COM/x.k7", "hostcase"},
	{"http.https://%75@example.com.k8", "escaped-user"},
	{"http.https://example.com/%7Erepo/a%2fb.k9", "escaped-path"},
	{"http.https://[::1]:8080/r.k10", "ipv6"},
	{"http.https://example.com/x/../y.k11", "dots"},
	{"http.not a url.k12", "bad"},
	{"http.https://*.*.example.com.k12", "two-wild"},
}

var urlmatchQueries = []string{
	"https://example.com/repo.git", "https://example.com/repo/x.git", "https://example.com/repo",
	"https://example.com/repo/", "https://user@example.com/repo/x.git", "https://user@example.com/other",
	"https://EXAMPLE.com:443/other", "https://example.com:8443/", "https://foo.example.com/",
	"https://foo.bar.example.com/", "http://example.com:80/", "ftp://example.com/", "https://example.com",
	"https://example.com/a/../repo/x", "https://example.com/%72epo/x", "https://other.com/repo",
	"https://aa.example.com/deep/path/x", "https://a.example.com/deep/path/x", "https://u@example.com/a/b",
	"https://v@example.com/a/b", "https://example.com/a/b/c/d", "https://example.com/a/bc", "https://example.com/A/x",
	"https://example.com/a/x", "https://example.com/x/y", "https://u@example.com/", "https://example.com/~repo/a%2Fb",
	"https://[::1]:8080/r/s", "https://[::1]/r/s", "https://example.com/y/z", "https://x.y.example.com/",
	"https://example.com:08443/", "https://user:secret@example.com/other",
}

// TestHTTPConfigMatchesGit asks real git (`git config --get-urlmatch`) and
// config for every key and URL of the tables: the values must agree.
func TestHTTPConfigMatchesGit(t *testing.T) {
	env := gittest.Sealed(t, "")
	for _, kv := range urlmatchConfig {
		gittest.Git(t, env, "", "config", "--global", "--add", kv[0], kv[1])
	}
	cfg, err := repo.Load(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	checked, matched := 0, map[string]bool{}
	for _, u := range urlmatchQueries {
		hc := testConfig(cfg, u)
		for k := 1; k <= 12; k++ {
			key := "k" + strconv.Itoa(k)
			c := gittest.Exec(t, env, "", nil, "git", "config", "--get-urlmatch", "http."+key, u)
			want, wantOK := strings.TrimSuffix(string(c.Stdout), "\n"), c.Code == 0
			if c.Code > 1 {
				t.Fatalf("git config --get-urlmatch http.%s %s: %s", key, u, c.Stderr)
			}
			e, ok := hc.get(key)
			if ok != wantOK || e.Value != want {
				t.Errorf("http.%s for %s: got %q (%v), git says %q (%v)", key, u, e.Value, ok, want, wantOK)
			}
			if ok {
				matched[e.Value] = true
			}
			checked++
		}
	}
	t.Logf("%d lookups agree with git", checked)
	// Every entry wins for some URL but "first" (shadowed by an equal match
	// that comes later) and "bad" (not a URL).
	for _, kv := range urlmatchConfig {
		if !matched[kv[1]] && kv[1] != "first" && kv[1] != "bad" {
			t.Errorf("%s never applied", kv[0])
		}
	}
}

// testConfig resolves http.* settings of cfg for the URL raw.
func testConfig(cfg repo.Config, raw string) config {
	target, ok := urlmatch.Parse(raw, transport.DefaultPort)
	return config{cfg: cfg, target: target, ok: ok}
}
