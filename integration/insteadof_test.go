package integration

import (
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"net/http/httptest"

	"github.com/git-durable/git-durable/internal/gittest"
)

// insteadOfTip returns the README's tip that sends every HTTPS fetch and
// push of a machine through the helper, as README.md writes it: the
// indented block that starts with its insteadOf line.
func insteadOfTip(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const first = `    git config --global url."durable::https://".insteadOf https://` + "\n"
	_, rest, ok := strings.Cut(string(b), first)
	if !ok {
		t.Fatalf("README.md has no line %q", first)
	}
	tip := strings.TrimPrefix(first, "    ")
	for _, l := range strings.SplitAfter(rest, "\n") {
		if !strings.HasPrefix(l, "    ") {
			break
		}
		tip += strings.TrimPrefix(l, "    ")
	}
	return tip
}

// TestInsteadOfTip runs the README's tip as written, then clones an HTTPS
// repository with a submodule on the same server with git clone
// --recurse-submodules: git rewrites both URLs to durable::, and clones
// the submodule with GIT_PROTOCOL_FROM_USER=0, where a helper's protocol
// is refused unless protocol.<name>.allow says always. Both must come
// through the helper (its stats name both URLs) and check out.
func TestInsteadOfTip(t *testing.T) {
	base := t.TempDir()
	env0 := sealedHTTP(t)
	srv := httptest.NewUnstartedServer(httpBackend(t, env0, base))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(base, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}

	sub := newUpstream(t, env0, base, "sub.git")
	subID := strings.TrimSpace(gittest.Git(t, env0, sub, "rev-parse", "main"))
	work := gittest.Init(t, env0, false, "")
	gittest.WriteFile(t, work, ".gitmodules", "[submodule \"sub\"]\n\tpath = sub\n\turl = "+srv.URL+"/sub.git\n")
	gittest.WriteFile(t, work, "README", "super\n")
	gittest.Git(t, env0, work, "update-index", "--add", "--cacheinfo", "160000,"+subID+",sub")
	gittest.Git(t, env0, work, "add", ".gitmodules", "README")
	gittest.Git(t, env0, work, "commit", "-q", "-m", "super")
	gittest.Git(t, env0, base, "clone", "-q", "--bare", work, filepath.Join(base, "super.git"))

	env := sealedHTTP(t)
	gittest.Git(t, env, "", "config", "--global", "http.sslCAInfo", ca)
	if c := gittest.Exec(t, env, t.TempDir(), nil, "sh", "-ec", insteadOfTip(t)); c.Code != 0 {
		t.Fatalf("the tip: exit %d\n%s", c.Code, c.Stderr)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	c, stats := durable(t, env, "", "clone", "-q", "--recurse-submodules", srv.URL+"/super.git", clone)
	mustRun(t, c, "clone --recurse-submodules after the tip")
	if got := strings.TrimSpace(gittest.Git(t, env, filepath.Join(clone, "sub"), "rev-parse", "HEAD")); got != subID {
		t.Errorf("the submodule is at %q, want %s", got, subID)
	}
	urls := map[string]bool{}
	for _, s := range stats {
		urls[s.URL] = true
	}
	if !urls[srv.URL+"/super.git"] || !urls[srv.URL+"/sub.git"] {
		t.Errorf("fetches through the helper: %v; want both repositories", urls)
	}
	gittest.Fsck(t, env, clone)
	gittest.Fsck(t, env, filepath.Join(clone, "sub"))
}
