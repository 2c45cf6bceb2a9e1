package integration

import (
	"bytes"
	"encoding/json"
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
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/remote"
)

// upstream is a repository the helper fetches from and pushes to.
type upstream struct {
	dir   string // the bare repository on disk
	url   string // what follows "durable::"
	plain string // the same repository for stock git, the oracle ("" to use dir)
}

// newUpstream makes a bare repository with a generated history (tags, a
// side branch), accepting pushes over every protocol.
func newUpstream(t *testing.T, env []string, base, name string) string {
	t.Helper()
	return newUpstreamOf(t, env, base, name, "sha1", 30, 40)
}

// newUpstreamOf is newUpstream in the object format (sha1, sha256) with
// a history of files files and commits commits.
func newUpstreamOf(t *testing.T, env []string, base, name, format string, files, commits int) string {
	t.Helper()
	dir := filepath.Join(base, name)
	gittest.Git(t, env, base, "init", "-q", "--bare", "-b", "main", "--object-format="+format, dir)
	gittest.History(t, env, dir, files, commits)
	gittest.Git(t, env, dir, "config", "http.receivepack", "true")
	gittest.Git(t, env, dir, "config", "receive.denyDeleteCurrent", "warn")
	return dir
}

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

// durable runs git with the helper's statistics going to a file, and
// returns the run and the statistics lines it added.
func durable(t *testing.T, env []string, dir string, args ...string) (*gittest.Cmd, []remote.BatchStats) {
	t.Helper()
	stats := filepath.Join(t.TempDir(), "stats")
	c := gittest.Exec(t, append(append([]string{}, env...), "GIT_REMOTE_DURABLE_STATS="+stats), dir, nil, "git", args...)
	return c, readStats(t, stats)
}

// readStats reads the helper's statistics file (absent: no fetch batch):
// its batch lines.
func readStats(t *testing.T, path string) []remote.BatchStats {
	t.Helper()
	var out []remote.BatchStats
	for _, line := range statsLines(t, path, false) {
		var s remote.BatchStats
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("stats line %q: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}

// readSessions reads the session lines of the helper's statistics file.
func readSessions(t *testing.T, path string) []remote.SessionStats {
	t.Helper()
	var out []remote.SessionStats
	for _, line := range statsLines(t, path, true) {
		var s remote.SessionStats
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("stats line %q: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}

// statsLines returns the session lines of the statistics file path, or
// its other lines (a batch's each).
func statsLines(t *testing.T, path string, sessions bool) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line != "" && strings.HasPrefix(line, `{"kind":"session"`) == sessions {
			out = append(out, line)
		}
	}
	return out
}

// checkBatches fails unless every fetch batch made its objects durable the
// batch way: a writeout per object written and one hardware flush (none
// when nothing was written; on a filesystem where batch is not sound, the
// fallback's flush per object).
// shallowWriteout is the writeout of $GIT_DIR/shallow that a batch which
// wrote it counts.
func shallowWriteout(s remote.BatchStats) int64 {
	if s.Shallow {
		return 1
	}
	return 0
}

func checkBatches(t *testing.T, stats []remote.BatchStats) {
	t.Helper()
	if len(stats) == 0 {
		t.Fatal("no fetch batch was recorded")
	}
	for _, s := range stats {
		switch {
		case s.Pack != "" && s.Path == "batch":
			// A kept pack: its .pack, .idx, .rev and .keep written out,
			// one flush after the .idx (and the shallow file written out
			// after it, made durable with the refs as the session ends).
			if s.WriteoutOnly != 4+shallowWriteout(s) || s.HardwareFlush != 1 || s.Error != "" {
				t.Errorf("batch %d kept pack %s with %d writeouts, %d hardware flushes", s.Batch, s.Pack, s.WriteoutOnly, s.HardwareFlush)
			}
		case s.Path == "batch":
			flushes := int64(1)
			if s.Written == 0 {
				flushes = 0 // nothing renamed, nothing to flush
			}
			if s.HardwareFlush != flushes || s.WriteoutOnly != int64(s.Written)+shallowWriteout(s) || s.Error != "" {
				t.Errorf("batch %d: %d objects written, %d writeouts, %d hardware flushes; want a writeout each and 1 flush", s.Batch, s.Written, s.WriteoutOnly, s.HardwareFlush)
			}
		case s.Path == "fallback-fsync":
			t.Logf("fallback path (%s)", s.Reason)
			if s.HardwareFlush < int64(s.Written) {
				t.Errorf("fallback: %d objects written, %d flushes", s.Written, s.HardwareFlush)
			}
		default:
			t.Errorf("batch %d ran path %q", s.Batch, s.Path)
		}
	}
}
