package integration

import (
	"net/http"
	"path/filepath"
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
