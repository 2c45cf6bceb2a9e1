package integration

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// Credentials the first host (A) accepts, and that must never reach the
// second (B).
const (
	hostileUser   = "alice"
	hostilePass   = "pw-for-a-only-31"
	hostileHeader = "X-Secret-A"
	hostileToken  = "token-for-a-only-47"
)

// newlinePath is the start of the path the "newline" redirect sends to:
// decoded, the credential request for it would gain a line.
const newlinePath = "/x\nhost=victim.example"

// hop is one request a server received.
type hop struct {
	server, method, path string
	auth, extra          string // the Authorization and extra header values
}

// redirector is a pair of servers on two ports of 127.0.0.1, so two origins:
// A wants the credentials (Basic, or the extra header) and, depending on
// mode, redirects to B, which serves the same repositories without asking
// anything. Both log every request. Neither advertises include-tag, so a
// fetch that follows tags needs a second fetch batch (git's tag backfill):
// a second session of the helper.
type redirector struct {
	mode string // "refs": A redirects GET info/refs to B; "post": the POST; "same": GET info/refs to another path on A; "newline": GET info/refs to a path of B that decodes to a newline (newlinePath); "": no redirect
	a, b string // base URLs

	mu   sync.Mutex
	hops []hop
}

func startRedirecting(t *testing.T, env []string, base, mode string) *redirector {
	t.Helper()
	h := &redirector{mode: mode}
	backend := noIncludeTag(httpBackend(t, env, base))
	h.b = startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.log("B", r)
		r.URL.Path = strings.TrimPrefix(r.URL.Path, newlinePath)
		backend.ServeHTTP(w, r)
	}))
	h.a = startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.log("A", r)
		if mode == "newline" && r.Method == http.MethodGet {
			// Before any 401: git moves its base URL to where the
			// first request of the refs was redirected, not a later one.
			http.Redirect(w, r, h.b+strings.ReplaceAll(newlinePath, "\n", "%0a")+r.URL.RequestURI(), http.StatusFound)
			return
		}
		if u, p, ok := r.BasicAuth(); !(ok && u == hostileUser && p == hostilePass) && r.Header.Get(hostileHeader) != hostileToken {
			w.Header().Set("WWW-Authenticate", `Basic realm="a"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		if moved, ok := strings.CutPrefix(r.URL.Path, "/moved"); ok {
			r.URL.Path = moved
		} else if refs := r.Method == http.MethodGet; refs && (mode == "refs" || mode == "same") || !refs && mode == "post" {
			to := h.b + r.URL.RequestURI()
			if mode == "same" {
				to = "/moved" + r.URL.RequestURI()
			}
			code := http.StatusFound
			if !refs {
				code = http.StatusTemporaryRedirect // a POST stays a POST, for curl and Go alike
			}
			http.Redirect(w, r, to, code)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	return h
}

func (h *redirector) log(server string, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hops = append(h.hops, hop{server, r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get(hostileHeader)})
}

// take returns the requests logged since the last call, and forgets them.
func (h *redirector) take() []hop {
	h.mu.Lock()
	defer h.mu.Unlock()
	hops := h.hops
	h.hops = nil
	return hops
}

// noIncludeTag removes include-tag from the advertisement of next.
func noIncludeTag(next http.Handler) http.Handler {
	return rewriteCaps(next, func(pkt []byte) []byte { return bytes.Replace(pkt, []byte(" include-tag"), nil, 1) })
}

// rewriteCaps passes the line with the capabilities of next's
// advertisement (GET info/refs) through f.
func rewriteCaps(next http.Handler, f func(pkt []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/info/refs") {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		var out bytes.Buffer
		for done := false; len(body) >= 4; {
			var n int
			if _, err := fmt.Sscanf(string(body[:4]), "%04x", &n); err != nil || n > len(body) {
				break
			}
			if n == 0 {
				out.Write(body[:4])
				body = body[4:]
				continue
			}
			pkt := body[4:n]
			if !done && bytes.IndexByte(pkt, 0) >= 0 {
				pkt, done = f(pkt), true
			}
			fmt.Fprintf(&out, "%04x%s", len(pkt)+4, pkt)
			body = body[n:]
		}
		out.Write(body)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(out.Bytes())
	})
}

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

// fetchInto runs `git fetch` (tags followed) of url into a new repository
// at dir, through the helper when durable.
func fetchInto(t *testing.T, env []string, dir, url string, durable bool, follow string) *gittest.Cmd {
	t.Helper()
	gittest.Git(t, env, "", "init", "-q", "-b", "main", dir)
	if durable {
		url = "durable::" + url
	}
	gittest.Git(t, env, dir, "remote", "add", "origin", url)
	args := []string{"fetch", "origin"}
	if follow != "" {
		args = append([]string{"-c", "http.followRedirects=" + follow}, args...)
	}
	return gittest.Exec(t, env, dir, nil, "git", args...)
}

// TestRemoteHostileRedirects fetches from A with credentials for A only
// (in the URL, from a credential helper, as http.<url>.extraHeader) while A
// redirects, with http.followRedirects initial (the default), true and
// false. Nothing of A's credentials may reach B, on any request of the run:
// the first, the POST, or the second session of the tag backfill. Plain git
// on the same server is the oracle for the outcome (git 2.39 itself sends
// the URL password and the extra header on to B; we are stricter).
func TestRemoteHostileRedirects(t *testing.T) {
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
				hostileRun(t, tc.mode, tc.follow, tc.fails, cred)
			})
		}
	}
}

func hostileRun(t *testing.T, mode, follow, fails string, cred hostileCase) {
	env := env(t)
	base := t.TempDir()
	newUpstream(t, env, base, "up.git")
	h := startRedirecting(t, env, base, mode)
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
	checkHops(t, mode, hops)
}

// checkHops checks that the redirected requests happened, so that the run
// tested what it claims: for "refs" two sessions (the fetch and the tag
// backfill) at B; for "post" POSTs at B; for "same" the credentials went to
// the new path on A, as with git (same scheme, host and port).
func checkHops(t *testing.T, mode string, hops []hop) {
	t.Helper()
	n := 0
	for _, p := range hops {
		switch {
		case mode == "refs" && p.server == "B" && strings.HasSuffix(p.path, "/info/refs"),
			mode == "post" && p.server == "B" && p.method == http.MethodPost:
			n++
		case mode == "same" && strings.HasPrefix(p.path, "/moved"):
			if p.auth == "" && p.extra == "" {
				t.Errorf("no credentials for the same host: %+v", p)
			}
			n++
		}
	}
	if min := map[string]int{"refs": 2, "post": 1, "same": 2}[mode]; n < min {
		t.Errorf("%d redirected requests, want at least %d: %+v", n, min, hops)
	}
	t.Logf("ours: %+v", hops)
}
