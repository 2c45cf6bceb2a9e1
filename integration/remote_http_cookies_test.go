package integration

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// cookieGate lets a request through only with the cookie auth=ok (as a
// Gerrit or googlesource front end wants its login cookie), and counts
// those it turned away.
type cookieGate struct {
	next    http.Handler
	refused int
}

func (g *cookieGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie("auth"); err != nil || c.Value != "ok" {
		g.refused++
		http.Error(w, "log in first", http.StatusForbidden)
		return
	}
	g.next.ServeHTTP(w, r)
}

// TestRemoteHTTPCookies: with http.cookieFile naming a file in curl's
// Netscape format, the helper sends the cookies it holds for the server,
// as plain git does: a clone that the server refuses without its cookie
// works through both; without the setting, both are refused. With
// http.emptyAuth=true the clone works as without it.
func TestRemoteHTTPCookies(t *testing.T) {
	env := sealedHTTP(t)
	base := t.TempDir()
	newUpstream(t, env, base, "up.git")
	gate := &cookieGate{next: httpBackend(t, env, base)}
	url := startHTTP(t, gate) + "/up.git"
	cookies := filepath.Join(base, "cookies.txt")
	gittest.WriteFile(t, base, "cookies.txt", "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tauth\tok\n")
	for _, side := range hostileSides {
		dir := filepath.Join(t.TempDir(), "refused")
		if c := gittest.Exec(t, env, "", nil, "git", "clone", "-q", side.prefix+url, dir); c.Code == 0 {
			t.Errorf("%s: a clone without the cookie succeeded", side.name)
		}
		dir = filepath.Join(t.TempDir(), "clone")
		c := gittest.Exec(t, env, "", nil, "git", "-c", "http.cookieFile="+cookies, "-c", "http.emptyAuth=true", "clone", "-q", side.prefix+url, dir)
		mustRun(t, c, side.name+" clone with the cookie file")
		gittest.Fsck(t, env, dir)
	}
}

// TestRemoteHTTPSecureCookies: a secure cookie goes over plain http only to
// localhost, 127.0.0.1 and ::1, as curl sends it (and so plain git): a
// server on 127.0.0.2, another loopback address, never gets it, though
// Go's cookie jar would send it there; the cookie that is not secure goes
// to both, through plain git and the helper alike.
func TestRemoteHTTPSecureCookies(t *testing.T) {
	env := sealedHTTP(t)
	base := t.TempDir()
	newUpstream(t, env, base, "up.git")
	backend := httpBackend(t, env, base)
	var mu sync.Mutex
	got := map[string]string{} // host: the cookies of its last request
	logged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[strings.Split(r.Host, ":")[0]] += r.Header.Get("Cookie") + ";"
		mu.Unlock()
		backend.ServeHTTP(w, r)
	})
	one := startHTTP(t, logged)
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skip("no listener on 127.0.0.2: ", err)
	}
	two := httptest.NewUnstartedServer(logged)
	two.Listener.Close()
	two.Listener = ln
	two.Start()
	t.Cleanup(two.Close)
	cookies := filepath.Join(base, "cookies.txt")
	var file strings.Builder
	for _, h := range []string{"127.0.0.1", "127.0.0.2"} {
		file.WriteString(h + "\tFALSE\t/\tTRUE\t0\tsecure\t1\n" + h + "\tFALSE\t/\tFALSE\t0\tplain\t1\n")
	}
	gittest.WriteFile(t, base, "cookies.txt", file.String())
	for _, side := range hostileSides {
		for _, url := range []string{one, two.URL} {
			c := gittest.Exec(t, env, "", nil, "git", "-c", "http.cookieFile="+cookies, "ls-remote", side.prefix+url+"/up.git")
			mustRun(t, c, side.name+" ls-remote "+url)
		}
		mu.Lock()
		if !strings.Contains(got["127.0.0.1"], "secure=1") || !strings.Contains(got["127.0.0.1"], "plain=1") {
			t.Errorf("%s: 127.0.0.1 got %q, want both cookies", side.name, got["127.0.0.1"])
		}
		if strings.Contains(got["127.0.0.2"], "secure=1") || !strings.Contains(got["127.0.0.2"], "plain=1") {
			t.Errorf("%s: 127.0.0.2 got %q, want the plain cookie only", side.name, got["127.0.0.2"])
		}
		got = map[string]string{}
		mu.Unlock()
	}
}
