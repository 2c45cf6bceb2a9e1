package integration

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Two HTTP origins, the second taking what the first redirects: the
// servers of the tests of credentials sent where they must not go.

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
	referer              string // what the request said it came from
}

// redirector is a pair of servers on two ports of 127.0.0.1, so two origins:
// A wants the credentials (Basic, or the extra header) and, depending on
// mode, redirects to B, which serves the same repositories without asking
// anything. Both log every request. Neither advertises include-tag, so a
// fetch that follows tags needs a second fetch batch (git's tag backfill):
// a second session of the helper (over protocol v0: see v0).
type redirector struct {
	mode string // "refs": A redirects GET info/refs to B; "post": the POST; "same": GET info/refs to another path on A; "newline": GET info/refs to a path of B that decodes to a newline (newlinePath); "": no redirect
	a, b string // base URLs
	// v0 makes both servers speak protocol v0 only, without include-tag,
	// so that a fetch that follows tags needs the tag backfill: a second
	// session. With v2 (include-tag is no capability there) the tags come
	// with the fetch.
	v0 bool

	mu   sync.Mutex
	hops []hop
}

func startRedirecting(t *testing.T, env []string, base, mode string) *redirector {
	return startRedirectingVersion(t, env, base, mode, false)
}

// startRedirectingVersion starts a redirector whose servers speak protocol
// v0 only, or v2 as well.
func startRedirectingVersion(t *testing.T, env []string, base, mode string, v0 bool) *redirector {
	t.Helper()
	h := &redirector{mode: mode, v0: v0}
	backend := httpBackend(t, env, base)
	if v0 {
		backend = noIncludeTag(backend)
	}
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
	h.hops = append(h.hops, hop{server, r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get(hostileHeader), r.Header.Get("Referer")})
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
// advertisement (GET info/refs) through f. That line is protocol v0's, so
// the server speaks v0 only: it drops Git-Protocol from every request, as
// a server that knows no other version ignores it.
func rewriteCaps(next http.Handler, f func(pkt []byte) []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("Git-Protocol")
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
