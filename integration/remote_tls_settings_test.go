package integration

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteHTTPSClientSettings clones over TLS with the settings of
// git's that Go's crypto/tls and net/http do as curl does: a client
// certificate (http.sslCert, http.sslKey, GIT_SSL_CERT, GIT_SSL_KEY) for a
// server that requires one, the authorities of a directory
// (http.sslCAPath, GIT_SSL_CAPATH), a floor on the TLS version
// (http.sslVersion, GIT_SSL_VERSION), the User-Agent (http.userAgent,
// GIT_HTTP_USER_AGENT) and HTTP/1.1 (http.version). Plain git on the same
// server and settings is the oracle: the same outcome, the same header
// or protocol on every request.
func TestRemoteHTTPSClientSettings(t *testing.T) {
	base := t.TempDir()
	newUpstream(t, sealedHTTP(t), base, "up.git")
	ca, clientCA := newTestCA(t, base), newTestCA(t, t.TempDir())
	serverCert, client := ca.issue(t, false), clientCA.issue(t, true)
	certFile, keyFile, bothFile := filepath.Join(base, "client.pem"), filepath.Join(base, "client.key"), filepath.Join(base, "client-both.pem")
	writePEM(t, certFile, "CERTIFICATE", client.Certificate[0])
	keyDER, err := x509.MarshalPKCS8PrivateKey(client.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, keyFile, "PRIVATE KEY", keyDER)
	both := append(readFile(t, certFile), readFile(t, keyFile)...)
	if err := os.WriteFile(bothFile, both, 0o600); err != nil {
		t.Fatal(err)
	}
	caDir, emptyDir := filepath.Join(base, "cadir"), filepath.Join(base, "emptydir")
	for _, d := range []string{caDir, emptyDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(caDir, "test-ca.crt"), readFile(t, ca.file), 0o644); err != nil {
		t.Fatal(err)
	}
	requireCert := func(c *tls.Config) {
		c.ClientAuth, c.ClientCAs = tls.RequireAndVerifyClientCert, x509.NewCertPool()
		c.ClientCAs.AddCert(clientCA.cert)
	}
	tls12 := func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 }
	h2 := func(c *tls.Config) { c.NextProtos = []string{"h2", "http/1.1"} }
	trust := []string{"http.sslCAInfo", ca.file}
	for _, tc := range []struct {
		name   string
		tune   func(*tls.Config)
		config []string // key, value pairs for the global config
		env    []string
		ok     bool
		header string // what the server logs of every request
		want   string // its value
	}{
		{"no-client-cert", requireCert, trust, nil, false, "", ""},
		{"client-cert", requireCert, append(trust, "http.sslCert", certFile, "http.sslKey", keyFile), nil, true, "", ""},
		{"client-cert-one-file", requireCert, append(trust, "http.sslCert", bothFile), nil, true, "", ""},
		{"client-cert-env", requireCert, trust, []string{"GIT_SSL_CERT=" + certFile, "GIT_SSL_KEY=" + keyFile}, true, "", ""},
		{"client-cert-other-url", requireCert, append(trust, "http.https://other.example.sslCert", bothFile), nil, false, "", ""},
		{"capath", nil, []string{"http.sslCAPath", caDir}, nil, true, "", ""},
		{"capath-env", nil, nil, []string{"GIT_SSL_CAPATH=" + caDir}, true, "", ""},
		{"capath-empty", nil, []string{"http.sslCAPath", emptyDir}, nil, false, "", ""},
		{"tlsv1.3-floor", tls12, append(trust, "http.sslVersion", "tlsv1.3"), nil, false, "", ""},
		{"tlsv1.2-floor", tls12, append(trust, "http.sslVersion", "tlsv1.2"), nil, true, "", ""},
		{"tlsv1.3-env-empty", tls12, append(trust, "http.sslVersion", "tlsv1.3"), []string{"GIT_SSL_VERSION="}, true, "", ""},
		{"user-agent", nil, append(trust, "http.userAgent", "durable-test/1"), nil, true, "User-Agent", "durable-test/1"},
		{"user-agent-env", nil, append(trust, "http.userAgent", "durable-test/1"), []string{"GIT_HTTP_USER_AGENT=durable-env/2"}, true, "User-Agent", "durable-env/2"},
		{"http2", h2, trust, nil, true, "proto", "HTTP/2.0"},
		{"http1.1", h2, append(trust, "http.version", "HTTP/1.1"), nil, true, "proto", "HTTP/1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &seen{header: tc.header, next: httpBackend(t, sealedHTTP(t), base)}
			url := startTLS(t, log, serverCert, "127.0.0.1:0", tc.tune) + "/up.git"
			env := sealedHTTP(t, tc.env...)
			for i := 0; i < len(tc.config); i += 2 {
				gittest.Git(t, env, "", "config", "--global", tc.config[i], tc.config[i+1])
			}
			work := t.TempDir()
			for _, who := range []string{"plain", "ours"} {
				u := map[string]string{"plain": url, "ours": "durable::" + url}[who]
				c := gittest.Exec(t, env, "", nil, "git", "clone", "-q", u, filepath.Join(work, who))
				got := log.take()
				switch {
				case !tc.ok && who == "plain" && c.Code == 0:
					t.Fatalf("plain git (the oracle) succeeded")
				case !tc.ok && who == "ours":
					failed(t, env, c, "", "", "fatal: unable to access '"+url+"'")
				case !tc.ok:
				case who == "plain":
					mustRun(t, c, "plain git (the oracle)")
				default:
					mustRun(t, c, "clone")
				}
				if tc.header != "" && (len(got) == 0 || strings.Count(strings.Join(got, "\n")+"\n", tc.want+"\n") != len(got)) {
					t.Fatalf("%s: the server saw %s %q, want %q", who, tc.header, got, tc.want)
				}
			}
			if tc.ok {
				sameRepo(t, env, filepath.Join(work, "ours"), filepath.Join(work, "plain"))
			}
		})
	}
}
