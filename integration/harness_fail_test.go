package integration

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// Failures: an HTTP upstream that damages its packs on purpose (tamper),
// and the check that the helper fails as git does (failed).

// failed checks a failure as the helper must fail: git exits non-zero,
// stderr has exactly one fatal line (which must contain want) and no
// secret, the refs are those of before, and fsck is clean (no incomplete
// object under a final name).
func failed(t *testing.T, env []string, c *gittest.Cmd, repo, refsBefore, want string, secrets ...string) {
	t.Helper()
	stderr := string(c.Stderr)
	fatals := 0
	for _, l := range strings.Split(stderr, "\n") {
		// git 2.55 adds a line of its own after any helper that failed,
		// "fatal: remote helper 'durable' aborted session" (git 2.39 says
		// nothing): not the helper's.
		if strings.HasPrefix(l, "fatal:") && l != "fatal: remote helper 'durable' aborted session" {
			fatals++
		}
	}
	if c.Code == 0 || fatals != 1 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, %d fatal lines, want one containing %q:\n%s", c.Code, fatals, want, stderr)
	}
	t.Logf("exit %d: %s", c.Code, strings.TrimSpace(stderr))
	for _, s := range secrets {
		if strings.Contains(stderr, s) {
			t.Fatalf("a secret shows in: %s", stderr)
		}
	}
	if repo == "" {
		return
	}
	if got := refs(t, env, repo); got != refsBefore {
		t.Fatalf("refs changed:\n%s\nnow:\n%s", refsBefore, got)
	}
	gittest.Fsck(t, env, repo)
}

// tamper passes requests to a git http-backend and, in its failure modes,
// damages the pack of an upload-pack response on purpose: one byte flipped
// in the middle, the response cut in the middle, or half of it sent and
// then nothing until the client goes away, or a byte a second.
type tamper struct {
	next    http.Handler
	mu      sync.Mutex
	mode    string        // "", "corrupt", "truncate", "stall", "trickle"
	stalled chan struct{} // closed once a stalled response is half out
}

// set puts the upstream in the failure mode mode ("": none).
func (tp *tamper) set(mode string) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.mode, tp.stalled = mode, make(chan struct{})
}

// ServeHTTP passes r on to the http-backend, and damages the pack of its
// response as the mode says.
func (tp *tamper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tp.mu.Lock()
	mode, stalled := tp.mode, tp.stalled
	tp.mu.Unlock()
	if mode == "" || r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/git-upload-pack") {
		tp.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	tp.next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.Code)
	mid := packMiddle(body)
	if mid < 0 {
		mode = "" // no pack: protocol v2's ls-refs
	}
	switch mode {
	case "":
		w.Write(body)
	case "corrupt":
		body[mid] ^= 0x5a
		w.Write(body)
	case "truncate":
		w.Write(body[:mid])
	case "stall":
		w.Write(body[:mid])
		w.(http.Flusher).Flush()
		close(stalled)
		<-r.Context().Done()
	case "trickle":
		w.Write(body[:mid])
		trickle(w, r, body[mid:])
	}
}

// trickle writes data a byte a second, until the client goes away.
func trickle(w http.ResponseWriter, r *http.Request, data []byte) {
	for _, b := range data {
		w.Write([]byte{b})
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// packMiddle returns the offset in a side-band-64k response of the pack
// byte in the middle of the pack; -1 for a response without pack data.
func packMiddle(body []byte) int {
	var offs []int
	for p := 0; p+4 <= len(body); {
		n, err := strconv.ParseUint(string(body[p:p+4]), 16, 16)
		if err != nil || n == 3 || n >= 4 && p+int(n) > len(body) {
			break
		}
		if n < 4 { // a flush, or v2's delim (the pack follows "ready") or response-end
			p += 4
			continue
		}
		if n > 4 && body[p+4] == 1 {
			for o := p + 5; o < p+int(n); o++ {
				offs = append(offs, o)
			}
		}
		p += int(n)
	}
	if len(offs) == 0 {
		return -1
	}
	return offs[len(offs)/2]
}
