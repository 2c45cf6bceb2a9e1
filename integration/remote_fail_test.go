package integration

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/remote"
)

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

func (tp *tamper) set(mode string) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.mode, tp.stalled = mode, make(chan struct{})
}

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
		if err != nil || n != 0 && (n < 4 || p+int(n) > len(body)) {
			break
		}
		if n == 0 {
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

// TestRemoteFetchFailures fetches through a server that damages the pack
// on purpose: each failure must leave the repository as it was (refs,
// fsck), and the next fetch must complete the job.
func TestRemoteFetchFailures(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{"corrupt", "fatal: bad pack from 'http://127.0.0.1:"},
		{"truncate", "fatal: bad pack from 'http://127.0.0.1:"},
		{"stall", "fatal: interrupted"}, // the helper gets SIGTERM
		{"stall", ""},                   // the helper gets SIGKILL: git exits silently
	} {
		t.Run(tc.mode+strconv.FormatBool(tc.want == ""), func(t *testing.T) {
			env := env(t)
			base := t.TempDir()
			dir := newUpstream(t, env, base, "up.git")
			tp := &tamper{next: httpBackend(t, env, base)}
			url := startHTTP(t, tp) + "/up.git"
			ours := filepath.Join(base, "ours")
			c, _ := durable(t, env, "", "clone", "durable::"+url, ours)
			mustRun(t, c, "clone")
			advance(t, env, dir, 3, "v300")
			before := refs(t, env, ours)

			tp.set(tc.mode)
			if tc.mode == "stall" {
				c = killMidFetch(t, env, ours, tp, tc.want == "")
			} else {
				var stats []remote.BatchStats
				c, stats = durable(t, env, ours, "fetch")
				// The failed batch is recorded, and what it wrote is durable.
				if len(stats) != 1 || stats[0].Error == "" || stats[0].Written > 0 && stats[0].HardwareFlush != 1 {
					t.Errorf("stats of the failed batch: %+v", stats)
				}
			}
			if tc.want == "" {
				if c.Code == 0 || strings.Contains(string(c.Stderr), "fatal:") && strings.Count(string(c.Stderr), "fatal:") > 1 {
					t.Fatalf("exit %d\n%s", c.Code, c.Stderr)
				}
				if got := refs(t, env, ours); got != before {
					t.Fatalf("refs changed")
				}
				gittest.Fsck(t, env, ours)
			} else {
				failed(t, env, c, ours, before, tc.want)
			}

			tp.set("")
			c, stats := durable(t, env, ours, "fetch")
			mustRun(t, c, "fetch after the failure")
			checkBatches(t, stats)
			gittest.Fsck(t, env, ours)
			if a, b := gittest.Git(t, env, dir, "rev-parse", "main", "v300"), gittest.Git(t, env, ours, "rev-parse", "origin/main", "v300"); a != b {
				t.Fatalf("the next fetch did not complete the job: %s vs %s", a, b)
			}
		})
	}
}

// killMidFetch runs git fetch, waits until the server has sent half of the
// pack and stalls, then kills the helper (SIGKILL, or SIGTERM).
func killMidFetch(t *testing.T, env []string, repo string, tp *tamper, hard bool) *gittest.Cmd {
	t.Helper()
	tp.mu.Lock()
	stalled := tp.stalled
	tp.mu.Unlock()
	done := make(chan *gittest.Cmd, 1)
	go func() { done <- gittest.Exec(t, env, repo, nil, "git", "fetch") }()
	select {
	case <-stalled:
	case c := <-done:
		t.Fatalf("fetch ended before the stall: exit %d\n%s", c.Code, c.Stderr)
	case <-time.After(30 * time.Second):
		t.Fatal("the server never stalled")
	}
	pid := helperPid(t, repo)
	sig := syscall.SIGTERM
	if hard {
		sig = syscall.SIGKILL
	}
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Signal(sig)
	}
	if err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-done:
		return c
	case <-time.After(30 * time.Second):
		t.Fatal("git fetch did not end after the helper was killed")
	}
	return nil
}

// helperPid finds the git-remote-durable process working in repo (its
// working directory), started by this test's git fetch.
func helperPid(t *testing.T, repo string) int {
	t.Helper()
	want, _ := filepath.EvalSymlinks(repo)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		procs, _ := os.ReadDir("/proc")
		for _, p := range procs {
			pid, err := strconv.Atoi(p.Name())
			if err != nil {
				continue
			}
			exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
			cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
			if filepath.Base(exe) == "git-remote-durable" && cwd == want {
				return pid
			}
		}
	}
	t.Fatal("no git-remote-durable process found")
	return 0
}

// TestRemoteUnreachable fails to clone from upstreams that are not there:
// nothing listening, a missing repository, an ssh that cannot connect.
func TestRemoteUnreachable(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	newUpstream(t, env, base, "up.git")
	port := freePort(t)
	daemon := startDaemon(t, env, base)
	web := startHTTP(t, httpBackend(t, env, base))
	badSSH := filepath.Join(base, "bad-ssh")
	if err := os.WriteFile(badSSH, []byte("#!/bin/sh\necho 'ssh: connect to host nohost port 22: Connection refused' >&2\nexit 255\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, url, want string }{
		{"git-refused", fmt.Sprintf("git://127.0.0.1:%d/up.git", port), "fatal: unable to access 'git://127.0.0.1:"},
		{"http-refused", fmt.Sprintf("http://127.0.0.1:%d/up.git", port), "fatal: unable to access 'http://127.0.0.1:"},
		{"path-missing", filepath.Join(base, "nope.git"), "fatal: repository '" + filepath.Join(base, "nope.git") + "' not found"},
		{"git-missing", fmt.Sprintf("git://127.0.0.1:%d/nope.git", daemon), "fatal: remote error: no such repository: /nope.git"}, // git's words
		{"http-missing", web + "/nope.git", "fatal: repository '" + web + "/nope.git' not found"},
		{"ssh-refused", "ssh://nohost/x.git", "fatal: ssh: connect to host nohost port 22: Connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := append(env, "GIT_SSH_COMMAND="+badSSH, "GIT_SSH_VARIANT=ssh")
			dst := filepath.Join(t.TempDir(), "dst")
			c := gittest.Exec(t, env, "", nil, "git", "clone", "durable::"+tc.url, dst)
			failed(t, env, c, "", "", tc.want)
			if _, err := os.Stat(dst); err == nil {
				t.Error("a failed clone left its directory")
			}
		})
	}
}
