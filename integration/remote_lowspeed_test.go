package integration

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
)

// slowServer is a git http-backend (behind a tamper, which stalls or
// trickles the pack of an upload-pack response) that can also trickle the
// refs, a byte a second, or never answer a push.
type slowServer struct {
	tp   *tamper
	mu   sync.Mutex
	mode string // "", "refs-trickle", "push-stall", or the tamper's
}

// set puts the server (or its tamper) in a mode for the next request.
func (s *slowServer) set(mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = mode
	if mode == "stall" || mode == "trickle" {
		s.tp.set(mode)
	} else {
		s.tp.set("")
	}
}

func (s *slowServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	mode := s.mode
	s.mu.Unlock()
	switch {
	case mode == "refs-trickle" && strings.HasSuffix(r.URL.Path, "/info/refs"):
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		trickle(w, r, []byte("001e# service=git-upload-pack\n0000"))
	case mode == "push-stall" && strings.HasSuffix(r.URL.Path, "/git-receive-pack"):
		// Read all of the push first: net/http notices the client going
		// away (and ends the context) only once the body is read.
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	default:
		s.tp.ServeHTTP(w, r)
	}
}

// silentServer accepts connections on 127.0.0.1 and never answers; it
// returns the base URL.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + l.Addr().String()
}

// TestRemoteHTTPLowSpeed runs the helper with http.lowSpeedLimit=1000 and
// http.lowSpeedTime=2 (or GIT_HTTP_LOW_SPEED_LIMIT and _TIME) against a
// server that accepts and never answers, one that trickles the refs, the
// pack or nothing at all to a push: each fails within the period (plus a
// little) with curl's words as git prints them, the repository as it was,
// without a temporary file. Plain git on the same server is the oracle. A
// wait between requests (a credential helper taking longer than the
// period) is not slowness: that fetch succeeds, for git as for the helper.
func TestRemoteHTTPLowSpeed(t *testing.T) {
	const slow = "Operation too slow. Less than 1000 bytes/sec transferred the last 2 seconds"
	base := t.TempDir()
	dir := newUpstream(t, sealedHTTP(t), base, "up.git")
	srv := &slowServer{tp: &tamper{next: httpBackend(t, sealedHTTP(t), base)}}
	url := startHTTP(t, srv) + "/up.git"
	silent := silentServer(t) + "/up.git"
	for _, tc := range []struct {
		name, mode string // the tamper's mode, or the slowServer's
		op         string // "clone", "fetch", "push"
		url        string
		env        bool // the variables instead of the settings
		want       string
	}{
		{"accept-never-answer", "", "clone", silent, false, "fatal: unable to access '" + silent + "': " + slow},
		{"refs-trickle", "refs-trickle", "clone", url, true, "fatal: unable to access '" + url + "': " + slow},
		{"pack-stall", "stall", "fetch", url, false, "fatal: RPC failed; curl 28 " + slow},
		{"pack-trickle", "trickle", "fetch", url, true, "fatal: RPC failed; curl 28 " + slow},
		{"push-stall", "push-stall", "push", url, false, "fatal: RPC failed; curl 28 " + slow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sealedHTTP(t, "GIT_HTTP_LOW_SPEED_LIMIT=1000", "GIT_HTTP_LOW_SPEED_TIME=2")
			if !tc.env {
				env = sealedHTTP(t)
				gittest.Git(t, env, "", "config", "--global", "http.lowSpeedLimit", "1000")
				gittest.Git(t, env, "", "config", "--global", "http.lowSpeedTime", "2")
			}
			work := t.TempDir()
			plainDir, oursDir := filepath.Join(work, "plain"), filepath.Join(work, "ours")
			srv.set("")
			var before, upBefore string
			args := func(who string) []string {
				u := tc.url
				if who == "ours" {
					u = "durable::" + u
				}
				switch tc.op {
				case "clone":
					return []string{"clone", "-q", u, filepath.Join(work, who)}
				case "fetch":
					return []string{"-C", filepath.Join(work, who), "-c", "protocol.version=0", "fetch", "-q", u, "+refs/heads/*:refs/remotes/origin/*"}
				}
				return []string{"-C", filepath.Join(work, who), "push", u, "HEAD:refs/heads/pushed-" + tc.name}
			}
			if tc.op != "clone" {
				// The clones are made at full speed, with the watch on.
				for _, who := range []string{"plain", "ours"} {
					c, _ := durable(t, env, "", "clone", "-q", map[string]string{"plain": "", "ours": "durable::"}[who]+url, filepath.Join(work, who))
					mustRun(t, c, who+" clone")
				}
				if tc.op == "fetch" {
					advance(t, env, dir, 3, "v-"+tc.name)
				} else {
					for _, d := range []string{plainDir, oursDir} {
						gittest.WriteFile(t, d, "pushed.txt", tc.name)
						gittest.Git(t, env, d, "add", "pushed.txt")
						gittest.Git(t, env, d, "commit", "-q", "-m", "push "+tc.name)
					}
				}
				before, upBefore = refs(t, env, oursDir), refs(t, env, dir)
			}
			srv.set(tc.mode)
			start := time.Now()
			plain := gittest.Exec(t, env, "", nil, "git", args("plain")...)
			plainTook := time.Since(start)
			wantPlain := strings.Replace(tc.want, "fatal: RPC", "error: RPC", 1)
			wantPlain = strings.Replace(wantPlain, tc.url+"':", tc.url+"/':", 1)
			if plain.Code == 0 || !strings.Contains(string(plain.Stderr), wantPlain) {
				t.Fatalf("plain git (the oracle): exit %d, want %q:\n%s", plain.Code, wantPlain, plain.Stderr)
			}
			srv.set(tc.mode)
			start = time.Now()
			// A helper that never gives up is killed (with git, its process
			// group) rather than hang the test.
			ours := gittest.Exec(t, env, "", nil, "timeout", append([]string{"-s", "KILL", "30", "git"}, args("ours")...)...)
			took := time.Since(start)
			if tc.op == "clone" {
				failed(t, env, ours, "", "", tc.want)
				if _, err := os.Stat(oursDir); !os.IsNotExist(err) {
					t.Fatalf("the failed clone left %s", oursDir)
				}
			} else {
				failed(t, env, ours, oursDir, before, tc.want)
			}
			if ours.Code != plain.Code {
				t.Errorf("exit %d, plain git's %d", ours.Code, plain.Code)
			}
			t.Logf("failed after %v, plain git after %v", took, plainTook)
			// 2 s and a little; on a loaded machine, no more than plain git
			// took on the same server, and a little.
			limit := max(5*time.Second, plainTook+2*time.Second)
			if took < 2*time.Second || took > limit {
				t.Errorf("failed after %v, want 2 s and a little (at most %v)", took, limit)
			}
			if tmp := tempFiles(t, work); len(tmp) != 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
			if upBefore != "" && refs(t, env, dir) != upBefore {
				t.Errorf("the upstream's refs changed")
			}
			srv.set("")
		})
	}
	t.Run("idle-between-requests", func(t *testing.T) {
		env := sealedHTTP(t)
		authed := startHTTP(t, basicAuth("alice", "pw-lowspeed", httpBackend(t, env, base))) + "/up.git"
		gittest.Git(t, env, "", "config", "--global", "http.lowSpeedLimit", "1000")
		gittest.Git(t, env, "", "config", "--global", "http.lowSpeedTime", "1")
		helper := `!f() { cat >/dev/null; test "$1" = get || exit 0; sleep 3; echo username=alice; echo password=pw-lowspeed; }; f`
		gittest.Git(t, env, "", "config", "--global", "credential.helper", helper)
		plain, ours, dir := cloneBoth(t, env, authed)
		mustRun(t, plain, "plain git (the oracle) waiting 3 s for credentials")
		mustRun(t, ours, "clone waiting 3 s for credentials")
		sameRepo(t, env, dir, filepath.Join(filepath.Dir(dir), "plain"))
	})
}
