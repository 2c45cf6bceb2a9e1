package integration

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// hostileCase is how a test run hands A its credentials.
type hostileCase struct {
	name  string
	setup func(t *testing.T, env []string, h *redirector, work string) string // returns the URL to fetch
}

var hostileCreds = []hostileCase{
	{"url-password", func(t *testing.T, env []string, h *redirector, work string) string {
		return strings.Replace(h.a, "http://", "http://"+hostileUser+":"+hostilePass+"@", 1) + "/up.git"
	}},
	{"credential-helper", func(t *testing.T, env []string, h *redirector, work string) string {
		gittest.Git(t, env, "", "config", "--global", "credential.helper", credentialHelper(t, work, map[string]login{"*": {hostileUser, hostilePass}}))
		return h.a + "/up.git"
	}},
	{"extra-header", func(t *testing.T, env []string, h *redirector, work string) string {
		gittest.Git(t, env, "", "config", "--global", "http."+h.a+"/up.git.extraHeader", hostileHeader+": "+hostileToken)
		return h.a + "/up.git"
	}},
}

// TestRemoteHostileRedirects fetches from A with credentials for A only
// (in the URL, from a credential helper, as http.<url>.extraHeader) while A
// redirects, with http.followRedirects initial (the default), true and
// false. Nothing of A's credentials may reach B, on any request of the run:
// the first, the POST, or the second session of the tag backfill. Plain git
// on the same server is the oracle for the outcome (git 2.39 itself sends
// the URL password and the extra header on to B; we are stricter). The
// servers speak protocol v0 only (the tag backfill needs it), and then v2:
// its ls-refs and fetch are two POSTs of one session.
func TestRemoteHostileRedirects(t *testing.T) {
	for _, v := range []string{"v0", "v2"} {
		t.Run(v, func(t *testing.T) { hostileRedirects(t, v == "v0") })
	}
}

func hostileRedirects(t *testing.T, v0 bool) {
	for _, tc := range []struct {
		mode, follow string
		fails        string // the failure's words; "" for success
	}{
		{"refs", "", ""},
		{"refs", "true", ""},
		{"refs", "false", "The requested URL returned error: 302"},
		{"post", "", "The requested URL returned error: 307"},
		{"post", "true", ""},
		{"same", "", ""},
	} {
		for _, cred := range hostileCreds {
			t.Run(tc.mode+"-"+tc.follow+"-"+cred.name, func(t *testing.T) {
				hostileRun(t, tc.mode, tc.follow, tc.fails, cred, v0)
			})
		}
	}
}

func hostileRun(t *testing.T, mode, follow, fails string, cred hostileCase, v0 bool) {
	env := env(t)
	base := t.TempDir()
	newUpstream(t, env, base, "up.git")
	h := startRedirectingVersion(t, env, base, mode, v0)
	work := t.TempDir()
	url := cred.setup(t, env, h, work)

	plain := fetchInto(t, env, filepath.Join(work, "plain"), url, false, follow)
	t.Logf("plain git: exit %d, requests %v", plain.Code, h.take())
	ours := filepath.Join(work, "ours")
	c := fetchInto(t, env, ours, url, true, follow)
	hops := h.take()
	for _, p := range hops {
		if p.server == "B" && (p.auth != "" || p.extra != "") {
			t.Errorf("B got A's credentials: %+v", p)
		}
		if p.referer != "" {
			t.Errorf("a request carries a Referer, which curl never sends: %+v", p)
		}
	}
	if fails != "" {
		failed(t, env, c, ours, "HEAD -> refs/heads/main\n", fails, hostilePass, hostileToken)
		if plain.Code == 0 || !strings.Contains(string(plain.Stderr), fails) {
			t.Errorf("plain git: exit %d, want a failure with %q:\n%s", plain.Code, fails, plain.Stderr)
		}
		for _, p := range hops {
			if p.server == "B" || strings.HasPrefix(p.path, "/moved") {
				t.Errorf("a redirect was followed: %+v", p)
			}
		}
		return
	}
	mustRun(t, c, "fetch through the redirect")
	if plain.Code != 0 {
		t.Fatalf("plain git failed:\n%s", plain.Stderr)
	}
	if a, b := refs(t, env, filepath.Join(work, "plain")), refs(t, env, ours); a != b || !strings.Contains(b, "refs/tags/v") {
		t.Fatalf("refs differ:\ngit:\n%s\nours:\n%s", a, b)
	}
	gittest.Fsck(t, env, ours)
	for _, l := range strings.Split(string(c.Stderr), "\n") {
		// git's own "From <url>" does not hide a password after "durable::".
		if !strings.HasPrefix(l, "From ") && (strings.Contains(l, hostilePass) || strings.Contains(l, hostileToken)) {
			t.Fatalf("a secret shows: %s", l)
		}
	}
	checkHops(t, mode, hops, v0)
}

// checkHops checks that the redirected requests happened, so that the run
// tested what it claims: for "refs" two sessions (the fetch and the tag
// backfill) at B over v0, the session's GET and its two POSTs (ls-refs,
// fetch) over v2; for "post" POSTs at B; for "same" the credentials went to
// the new path on A, as with git (same scheme, host and port).
func checkHops(t *testing.T, mode string, hops []hop, v0 bool) {
	t.Helper()
	n := 0
	for _, p := range hops {
		switch {
		case mode == "refs" && p.server == "B" && strings.HasSuffix(p.path, "/info/refs"),
			mode == "refs" && !v0 && p.server == "B" && p.method == http.MethodPost,
			mode == "post" && p.server == "B" && p.method == http.MethodPost:
			n++
		case mode == "same" && strings.HasPrefix(p.path, "/moved"):
			if p.auth == "" && p.extra == "" {
				t.Errorf("no credentials for the same host: %+v", p)
			}
			n++
		}
	}
	min := map[string]int{"refs": 2, "post": 1, "same": 2}[mode]
	if !v0 && mode == "refs" {
		min = 3
	}
	if n < min {
		t.Errorf("%d redirected requests, want at least %d: %+v", n, min, hops)
	}
	t.Logf("ours: %+v", hops)
}
