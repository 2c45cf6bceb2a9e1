package integration

import (
	"encoding/pem"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// cloneBoth clones url with plain git and through the helper into new
// directories and returns both runs.
func cloneBoth(t *testing.T, env []string, url string) (plain, ours *gittest.Cmd, oursDir string) {
	t.Helper()
	work := t.TempDir()
	plain = gittest.Exec(t, env, "", nil, "git", "clone", "-q", url, filepath.Join(work, "plain"))
	oursDir = filepath.Join(work, "ours")
	ours = gittest.Exec(t, env, "", nil, "git", "clone", "-q", "durable::"+url, oursDir)
	return plain, ours, oursDir
}

// TestRemoteHTTPSVerify clones from a TLS server with a self-signed
// certificate: refused by default, accepted with http.<url>.sslVerify
// false (and not when the key is for another URL), with GIT_SSL_NO_VERIFY,
// and with the certificate as http.<url>.sslCAInfo — as plain git does.
func TestRemoteHTTPSVerify(t *testing.T) {
	base := t.TempDir()
	newUpstream(t, sealedHTTP(t), base, "up.git")
	srv := httptest.NewUnstartedServer(httpBackend(t, sealedHTTP(t), base))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(base, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	url := srv.URL + "/up.git"
	for _, tc := range []struct {
		name   string
		config []string // key, value pairs for the global config
		env    []string
		ok     bool
	}{
		{"default", nil, nil, false},
		{"url-sslverify", []string{"http." + srv.URL + "/.sslVerify", "false"}, nil, true},
		{"other-url-sslverify", []string{"http.https://other.example/.sslVerify", "false"}, nil, false},
		{"url-overrides-plain", []string{"http.sslVerify", "false", "http." + url + ".sslVerify", "true"}, nil, false},
		{"git-ssl-no-verify", nil, []string{"GIT_SSL_NO_VERIFY=1"}, true},
		{"url-cainfo", []string{"http." + srv.URL + ".sslCAInfo", ca}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sealedHTTP(t, tc.env...)
			for i := 0; i < len(tc.config); i += 2 {
				gittest.Git(t, env, "", "config", "--global", tc.config[i], tc.config[i+1])
			}
			plain, ours, dir := cloneBoth(t, env, url)
			if (plain.Code == 0) != tc.ok {
				t.Fatalf("plain git (the oracle) exit %d, want success %v:\n%s", plain.Code, tc.ok, plain.Stderr)
			}
			if !tc.ok {
				failed(t, env, ours, "", "", "fatal: unable to access '"+url+"': SSL certificate problem: ")
				return
			}
			mustRun(t, ours, "clone over TLS")
			sameRepo(t, env, dir, filepath.Join(filepath.Dir(dir), "plain"))
		})
	}
}

// TestRemoteHTTPProxy clones through a proxy chosen as git chooses it:
// http.<url>.proxy (empty: none), else http_proxy (lower case only for
// http), ALL_PROXY, with NO_PROXY exempting the host. Plain git on the same
// settings is the oracle: the proxy sees both, or neither.
func TestRemoteHTTPProxy(t *testing.T) {
	base := t.TempDir()
	newUpstream(t, sealedHTTP(t), base, "up.git")
	root := startHTTP(t, httpBackend(t, sealedHTTP(t), base))
	url := root + "/up.git"
	px := &forwardProxy{}
	proxy := startHTTP(t, px)
	for _, tc := range []struct {
		name   string
		config []string
		env    []string
		used   bool
	}{
		{"none", nil, nil, false},
		{"http.proxy", []string{"http.proxy", proxy}, nil, true},
		{"url-proxy", []string{"http." + root + ".proxy", strings.TrimPrefix(proxy, "http://")}, nil, true},
		{"other-url-proxy", []string{"http.http://other.example.proxy", proxy}, nil, false},
		{"env-http_proxy", nil, []string{"http_proxy=" + proxy}, true},
		{"env-HTTP_PROXY", nil, []string{"HTTP_PROXY=" + proxy}, false},
		{"env-https_proxy-for-http", nil, []string{"https_proxy=" + proxy}, false},
		{"env-ALL_PROXY", nil, []string{"ALL_PROXY=" + proxy}, true},
		{"env-no_proxy", nil, []string{"http_proxy=" + proxy, "no_proxy=127.0.0.1"}, false},
		{"env-NO_PROXY-config", []string{"http.proxy", proxy}, []string{"NO_PROXY=localhost,127.0.0.0/8"}, false},
		{"empty-http.proxy", []string{"http.proxy", ""}, []string{"http_proxy=" + proxy}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sealedHTTP(t, tc.env...)
			for i := 0; i < len(tc.config); i += 2 {
				gittest.Git(t, env, "", "config", "--global", tc.config[i], tc.config[i+1])
			}
			px.used()
			work := t.TempDir()
			plain := gittest.Exec(t, env, "", nil, "git", "clone", "-q", url, filepath.Join(work, "plain"))
			mustRun(t, plain, "plain git clone")
			if n := px.used(); (n > 0) != tc.used {
				t.Fatalf("plain git (the oracle): %d requests through the proxy, want use %v", n, tc.used)
			}
			ours, _ := durable(t, env, "", "clone", "-q", "durable::"+url, filepath.Join(work, "ours"))
			mustRun(t, ours, "clone")
			if n := px.used(); (n > 0) != tc.used {
				t.Fatalf("%d requests through the proxy, want use %v", n, tc.used)
			}
			sameRepo(t, env, filepath.Join(work, "ours"), filepath.Join(work, "plain"))
		})
	}
}
