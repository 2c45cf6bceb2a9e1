package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestRemoteHTTPRefusedSettings sets, one class at a time, an http.*
// setting of git's (or its variable) that the helper cannot honour as
// curl does: the helper refuses to run, with one fatal line naming the
// setting (or variable) and exit 128, before any request reaches the
// server (or the proxy). The same setting for another URL changes nothing.
func TestRemoteHTTPRefusedSettings(t *testing.T) {
	base := t.TempDir()
	newUpstream(t, sealedHTTP(t), base, "up.git")
	ca := newTestCA(t, base)
	cert := ca.issue(t, false)
	log := &seen{header: "User-Agent", next: httpBackend(t, sealedHTTP(t), base)}
	root := startTLS(t, log, cert, "127.0.0.1:0", nil)
	url := root + "/up.git"
	proxyLog := &seen{header: "User-Agent", next: &forwardProxy{}}
	proxy := startHTTP(t, proxyLog)
	// Where nothing listens: a helper that went on would fail at once.
	dead := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	certFile := filepath.Join(base, "client.pem")
	client := ca.issue(t, true)
	writePEM(t, certFile, "CERTIFICATE", client.Certificate[0])
	for _, tc := range []struct {
		name    string
		config  []string
		env     []string
		refused string // the setting the fatal line names; "" for a clone that works
	}{
		// Honoured now (TestRemoteHTTPCookies): a file that is not there
		// holds no cookie, as for curl.
		{"cookies", []string{"http.cookieFile", filepath.Join(base, "cookies.txt")}, nil, ""},
		{"cookies-url", []string{"http." + url + ".cookieFile", filepath.Join(base, "cookies.txt")}, nil, ""},
		{"cipher-list", []string{"http.sslCipherList", "ECDHE-ECDSA-AES128-GCM-SHA256"}, nil, "http.sslCipherList"},
		{"cipher-list-env", nil, []string{"GIT_SSL_CIPHER_LIST=ECDHE-ECDSA-AES128-GCM-SHA256"}, "GIT_SSL_CIPHER_LIST"},
		{"key-passphrase", []string{"http.sslCert", certFile, "http.sslCertPasswordProtected", "true"}, nil, "http.sslCertPasswordProtected"},
		{"key-passphrase-env", []string{"http.sslCert", certFile}, []string{"GIT_SSL_CERT_PASSWORD_PROTECTED=1"}, "GIT_SSL_CERT_PASSWORD_PROTECTED"},
		{"proxy-tls", []string{"http.proxySSLCert", certFile}, nil, "http.proxySSLCert"},
		{"proxy-tls-env", nil, []string{"GIT_PROXY_SSL_CAINFO=" + ca.file}, "GIT_PROXY_SSL_CAINFO"},
		{"proxy-auth", []string{"http.proxy", strings.Replace(proxy, "http://", "http://u:proxy-pw-91@", 1), "http.proxyAuthMethod", "ntlm"}, nil, "http.proxyAuthMethod"},
		{"proxy-auth-env", []string{"http.proxy", strings.Replace(proxy, "http://", "http://u:proxy-pw-91@", 1)}, []string{"GIT_HTTP_PROXY_AUTHMETHOD=digest"}, "GIT_HTTP_PROXY_AUTHMETHOD"},
		{"pin-through-https-proxy", []string{"http.proxy", "https://" + dead, "http.pinnedPubkey", pinOf(cert)}, nil, "http.pinnedPubkey"},
		{"resolve-through-socks5", []string{"http.proxy", "socks5://" + dead,
			"http.curloptResolve", fmt.Sprintf("127.0.0.1:%s:127.0.0.1", root[strings.LastIndex(root, ":")+1:])}, nil, "http.curloptResolve"},
		{"empty-auth", []string{"http.emptyAuth", "true"}, nil, ""}, // accepted: Basic as without it
		{"schannel", []string{"http.sslBackend", "schannel"}, nil, "http.sslBackend"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sealedHTTP(t, tc.env...)
			config := append([]string{"http.sslCAInfo", ca.file}, tc.config...)
			for i := 0; i < len(config); i += 2 {
				gittest.Git(t, env, "", "config", "--global", config[i], config[i+1])
			}
			dir := filepath.Join(t.TempDir(), "ours")
			ours := gittest.Exec(t, env, "", nil, "timeout", "-s", "KILL", "30", "git", "clone", "-q", "durable::"+url, dir)
			got, viaProxy := log.take(), proxyLog.take()
			if tc.refused == "" {
				mustRun(t, ours, "clone")
				return
			}
			failed(t, env, ours, "", "", "fatal: unsupported setting "+tc.refused+": ")
			if ours.Code != 128 || len(got) != 0 || len(viaProxy) != 0 {
				t.Fatalf("exit %d; %d requests reached the server, %d the proxy", ours.Code, len(got), len(viaProxy))
			}
		})
	}
}
