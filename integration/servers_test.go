package integration

// The upstreams the tests start (git daemon, git http-backend, a fake ssh;
// each stopped by its process id or its test's cleanup), and the kinds
// every remote scenario runs against.

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startDaemon serves the repositories under base with git daemon on
// 127.0.0.1 (fetch and push) and returns its port; the daemon is killed
// when the test ends.
func startDaemon(t *testing.T, env []string, base string) int {
	t.Helper()
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		cmd := exec.Command("git", "daemon", "--export-all", "--base-path="+base, "--listen=127.0.0.1",
			"--port="+strconv.Itoa(port), "--reuseaddr", "--enable=receive-pack", "--informative-errors", base)
		cmd.Env = env
		var errb bytes.Buffer
		cmd.Stderr = &errb
		// Its own process group, so that the connections it forked end with it.
		inGroup(cmd)
		cmd.WaitDelay = time.Second
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		t.Cleanup(func() { killGroup(cmd); <-exited })
		if listening(port, exited) {
			return port
		}
		if attempt == 3 {
			t.Fatalf("git daemon did not start: %s", errb.String())
		}
	}
}

// listening waits until something accepts connections on the port, or the
// server exits.
func listening(port int, exited <-chan struct{}) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			return false
		default:
		}
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return true
		}
	}
	return false
}

// httpBackend returns git http-backend serving the repositories under base
// (smart HTTP, fetch and push) as a CGI handler.
func httpBackend(t *testing.T, env []string, base string) http.Handler {
	t.Helper()
	execPath := strings.TrimSpace(gittest.Git(t, env, "", "--exec-path"))
	var keep []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "GIT_CONFIG_NOSYSTEM=") {
			keep = append(keep, kv)
		}
	}
	return &cgi.Handler{
		Path:   filepath.Join(execPath, "git-http-backend"),
		Env:    append(keep, "GIT_PROJECT_ROOT="+base, "GIT_HTTP_EXPORT_ALL=1"),
		Stderr: io.Discard,
	}
}

// startHTTP serves h on 127.0.0.1 and returns its base URL.
func startHTTP(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// basicAuth lets through only requests with the user and password.
func basicAuth(user, pass string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		if !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireHeader lets through only requests carrying the header.
func requireHeader(name, value string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(name) != value {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// withCharset adds "; charset=utf-8" to the Content-Type of next's
// answers, as some servers do.
func withCharset(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(charsetWriter{w}, r)
	})
}

// charsetWriter is withCharset's ResponseWriter.
type charsetWriter struct{ http.ResponseWriter }

// WriteHeader adds the charset to the Content-Type, then writes the
// header.
func (w charsetWriter) WriteHeader(code int) {
	if ct := w.Header().Get("Content-Type"); ct != "" {
		w.Header().Set("Content-Type", ct+"; charset=utf-8")
	}
	w.ResponseWriter.WriteHeader(code)
}

// fakeSSH writes a GIT_SSH_COMMAND that runs the remote command locally,
// as git's own test suite does, and logs its arguments to <dir>/ssh.log.
// The remote command replaces the script's process, as ssh is one process
// for as long as the remote command runs.
func fakeSSH(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "fake-ssh")
	script := "#!/bin/sh\necho \"$@\" >>" + filepath.Join(dir, "ssh.log") + "\nfor a; do last=$a; done\neval \"exec $last\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// kind is a way to reach an upstream: serve makes the repository dir
// (under base) reachable and returns the upstream, and the environment
// git needs for it.
type kind struct {
	name  string
	serve func(t *testing.T, env []string, base, dir string) (upstream, []string)
}

// kinds are the upstreams every scenario runs against: a bare repository
// by path and by file://, git daemon (git://), git http-backend (smart
// HTTP), and ssh through GIT_SSH_COMMAND (a fake ssh that runs the remote
// command locally; TestRemoteRealSSH uses sshd when it can).
var kinds = []kind{
	{"path", func(t *testing.T, env []string, base, dir string) (upstream, []string) {
		return upstream{dir: dir, url: dir, plain: "file://" + dir}, env
	}},
	{"file", func(t *testing.T, env []string, base, dir string) (upstream, []string) {
		return upstream{dir: dir, url: "file://" + dir}, env
	}},
	{"git", func(t *testing.T, env []string, base, dir string) (upstream, []string) {
		port := startDaemon(t, env, base)
		return upstream{dir: dir, url: fmt.Sprintf("git://127.0.0.1:%d/%s", port, filepath.Base(dir))}, env
	}},
	{"http", func(t *testing.T, env []string, base, dir string) (upstream, []string) {
		u := startHTTP(t, httpBackend(t, env, base))
		return upstream{dir: dir, url: u + "/" + filepath.Base(dir)}, env
	}},
	{"ssh", func(t *testing.T, env []string, base, dir string) (upstream, []string) {
		ssh := fakeSSH(t, base)
		return upstream{dir: dir, url: "ssh://git@fakehost:2222" + dir}, append(env, "GIT_SSH_COMMAND="+ssh, "GIT_SSH_VARIANT=ssh")
	}},
}

// forKinds runs f once per kind and protocol version, on a fresh upstream
// with a history: "<kind>" with git's default (protocol v2), "<kind>-v0"
// with protocol.version=0, for the helper and plain git alike.
func forKinds(t *testing.T, f func(t *testing.T, env []string, up upstream)) {
	for _, k := range kinds {
		for _, v := range []string{"", "-v0"} {
			t.Run(k.name+v, func(t *testing.T) {
				env := env(t)
				if v == "-v0" {
					env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.version", "GIT_CONFIG_VALUE_0=0")
				}
				base := t.TempDir()
				up, env := k.serve(t, env, base, newUpstream(t, env, base, "up.git"))
				if up.plain == "" {
					up.plain = up.url
				}
				f(t, env, up)
			})
		}
	}
}

// protocolOf is the protocol version forKinds's subtest runs with.
func protocolOf(t *testing.T) string {
	if strings.HasSuffix(t.Name(), "-v0") {
		return "0"
	}
	return "2"
}

// upstream is a repository the helper fetches from and pushes to.
type upstream struct {
	dir   string // the bare repository on disk
	url   string // what follows "durable::"
	plain string // the same repository for stock git, the oracle ("" to use dir)
}

// forwardProxy is a plain HTTP proxy that records the hosts it was asked
// for.
type forwardProxy struct {
	mu    sync.Mutex
	hosts []string
}

func (p *forwardProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !r.URL.IsAbs() {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.hosts = append(p.hosts, r.URL.Host)
	p.mu.Unlock()
	out, err := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	out.Header.Del("Proxy-Connection")
	out.ContentLength = r.ContentLength
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// used returns how many requests went through the proxy since the last
// call.
func (p *forwardProxy) used() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.hosts)
	p.hosts = nil
	return n
}
