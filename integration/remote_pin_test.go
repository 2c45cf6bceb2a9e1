package integration

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// The secret http.<url>.extraHeader sends, which only the genuine server
// may see.
const (
	pinHeader = "X-Pin-Secret"
	pinToken  = "token-for-the-genuine-host-53"
)

// TestRemoteHTTPSPinnedPubkey clones from a server whose certificate the
// client trusts (http.sslCAInfo) with http.pinnedPubkey set: a pin that is
// not the server's key refuses the transfer before any request (the extra
// header never reaches the server), in git's words; the right pin, in any
// of curl's forms, lets it through; http.<url>.pinnedPubkey applies only
// to its URL. Plain git on the same settings is the oracle.
func TestRemoteHTTPSPinnedPubkey(t *testing.T) {
	base := t.TempDir()
	newUpstream(t, sealedHTTP(t), base, "up.git")
	ca := newTestCA(t, base)
	cert, impostor := ca.issue(t, false), ca.issue(t, false)
	log := &seen{header: pinHeader, next: httpBackend(t, sealedHTTP(t), base)}
	root := startTLS(t, log, cert, "127.0.0.1:0", nil)
	url := root + "/up.git"
	pem, der, wrongDER := filepath.Join(base, "key.pem"), filepath.Join(base, "key.der"), filepath.Join(base, "wrong.der")
	writePEM(t, pem, "PUBLIC KEY", cert.Leaf.RawSubjectPublicKeyInfo)
	for path, b := range map[string][]byte{der: cert.Leaf.RawSubjectPublicKeyInfo, wrongDER: impostor.Leaf.RawSubjectPublicKeyInfo} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	right, wrong := pinOf(cert), pinOf(impostor)
	for _, tc := range []struct {
		name   string
		config []string // key, value pairs for the global config
		ok     bool
	}{
		{"right", []string{"http.pinnedPubkey", right}, true},
		{"wrong", []string{"http.pinnedPubkey", wrong}, false},
		{"list", []string{"http.pinnedPubkey", wrong + ";" + right}, true},
		{"pem-file", []string{"http.pinnedPubkey", pem}, true},
		{"der-file", []string{"http.pinnedPubkey", der}, true},
		{"wrong-der-file", []string{"http.pinnedPubkey", wrongDER}, false},
		{"missing-file", []string{"http.pinnedPubkey", filepath.Join(base, "missing.pem")}, false},
		{"url-wrong", []string{"http." + root + ".pinnedPubkey", wrong}, false},
		{"other-url-wrong", []string{"http.https://other.example.pinnedPubkey", wrong}, true},
		{"url-right-over-plain", []string{"http.pinnedPubkey", wrong, "http." + url + ".pinnedPubkey", right}, true},
		{"no-verify-wrong", []string{"http.sslVerify", "false", "http.pinnedPubkey", wrong}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sealedHTTP(t)
			config := append([]string{"http.sslCAInfo", ca.file, "http." + url + ".extraHeader", pinHeader + ": " + pinToken}, tc.config...)
			for i := 0; i < len(config); i += 2 {
				gittest.Git(t, env, "", "config", "--global", config[i], config[i+1])
			}
			work := t.TempDir()
			plain := gittest.Exec(t, env, "", nil, "git", "clone", "-q", url, filepath.Join(work, "plain"))
			if got := log.take(); (plain.Code == 0) != tc.ok || (len(got) > 0) != tc.ok {
				t.Fatalf("plain git (the oracle): exit %d, %d requests, want success %v:\n%s", plain.Code, len(got), tc.ok, plain.Stderr)
			}
			ours := gittest.Exec(t, env, "", nil, "git", "clone", "-q", "durable::"+url, filepath.Join(work, "ours"))
			got := log.take()
			if !tc.ok {
				if !strings.Contains(string(plain.Stderr), "fatal: unable to access '"+url+"/' with http.pinnedPubkey configuration: SSL: public key does not match pinned public key") {
					t.Fatalf("plain git's words changed:\n%s", plain.Stderr)
				}
				failed(t, env, ours, "", "", "fatal: unable to access '"+url+"' with http.pinnedPubkey configuration: SSL: public key does not match pinned public key", pinToken)
				if ours.Code != 128 || len(got) != 0 {
					t.Fatalf("exit %d, %d requests reached the server: %q", ours.Code, len(got), got)
				}
				return
			}
			mustRun(t, ours, "clone with the right pin")
			sameRepo(t, env, filepath.Join(work, "ours"), filepath.Join(work, "plain"))
			if len(got) == 0 || strings.Count(strings.Join(got, "\n"), pinToken) != len(got) {
				t.Fatalf("the server saw the header %q", got)
			}
		})
	}
}

// listenPair listens on the same free port of 127.0.0.1 and 127.0.0.2, two
// loopback addresses, and returns the port and both listeners, open, so
// that no other process can take the port before the servers start.
func listenPair(t *testing.T) (port int, a, b net.Listener) {
	t.Helper()
	for attempt := 0; attempt < 20; attempt++ {
		a, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := a.Addr().(*net.TCPAddr).Port
		b, err := net.Listen("tcp", fmt.Sprintf("127.0.0.2:%d", port))
		if errors.Is(err, syscall.EADDRNOTAVAIL) {
			a.Close()
			t.Skip("127.0.0.2 is not a loopback address here: ", err)
		}
		if err == nil {
			return port, a, b
		}
		a.Close()
	}
	t.Fatal("no port free on both 127.0.0.1 and 127.0.0.2")
	return 0, nil, nil
}

// TestRemoteHTTPSResolve clones https://git.example:PORT, a name that does
// not resolve, with http.curloptResolve entries that map it to the genuine
// server (127.0.0.1) or to an impostor on the same port of 127.0.0.2 whose
// certificate is as trusted: an entry wins over the ones before it, a
// removal or an empty value forgets them, http.<url>.curloptResolve
// applies to its URL. The listener that got the requests (and the extra
// header) is the one plain git reaches on the same settings.
func TestRemoteHTTPSResolve(t *testing.T) {
	base := t.TempDir()
	newUpstream(t, sealedHTTP(t), base, "up.git")
	ca := newTestCA(t, base)
	port, la, lb := listenPair(t)
	genuine := &seen{header: pinHeader, next: httpBackend(t, sealedHTTP(t), base)}
	impostor := &seen{header: pinHeader, next: httpBackend(t, sealedHTTP(t), base)}
	serveTLS(t, genuine, ca.issue(t, false), la, nil)
	serveTLS(t, impostor, ca.issue(t, false), lb, nil)
	root := fmt.Sprintf("https://git.example:%d", port)
	url := root + "/up.git"
	to := func(addr string) string { return fmt.Sprintf("git.example:%d:%s", port, addr) }
	for _, tc := range []struct {
		name    string
		entries []string // key, value pairs added to the global config in order
		want    string   // the listener reached: "genuine", "impostor", "" none
	}{
		{"genuine", []string{"http.curloptResolve", to("127.0.0.1")}, "genuine"},
		{"impostor", []string{"http.curloptResolve", to("127.0.0.2")}, "impostor"},
		{"override", []string{"http.curloptResolve", to("127.0.0.2"), "http.curloptResolve", to("127.0.0.1")}, "genuine"},
		{"removed", []string{"http.curloptResolve", to("127.0.0.2"), "http.curloptResolve", fmt.Sprintf("-git.example:%d", port),
			"http.curloptResolve", "+" + to("127.0.0.1")}, "genuine"},
		{"reset", []string{"http.curloptResolve", to("127.0.0.2"), "http.curloptResolve", "", "http.curloptResolve", to("127.0.0.1")}, "genuine"},
		{"url", []string{"http.curloptResolve", to("127.0.0.2"), "http." + root + ".curloptResolve", to("127.0.0.1")}, "genuine"},
		{"other-url", []string{"http.curloptResolve", to("127.0.0.2"), "http.https://other.example.curloptResolve", to("127.0.0.1")}, "impostor"},
		{"wildcard-then-name", []string{"http.curloptResolve", fmt.Sprintf("*:%d:127.0.0.1", port), "http.curloptResolve", to("127.0.0.2")}, "impostor"},
		{"bad-entry", []string{"http.curloptResolve", to("127.0.0.1"), "http.curloptResolve", "git.example"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sealedHTTP(t)
			config := append([]string{"http.sslCAInfo", ca.file, "http." + url + ".extraHeader", pinHeader + ": " + pinToken}, tc.entries...)
			for i := 0; i < len(config); i += 2 {
				gittest.Git(t, env, "", "config", "--global", "--add", "--", config[i], config[i+1])
			}
			work := t.TempDir()
			for _, run := range []struct{ who, url string }{{"plain", url}, {"ours", "durable::" + url}} {
				c := gittest.Exec(t, env, "", nil, "git", "clone", "-q", run.url, filepath.Join(work, run.who))
				g, i := genuine.take(), impostor.take()
				reached := map[bool]string{true: "genuine", false: "impostor"}[len(g) > 0]
				if len(g) == 0 && len(i) == 0 {
					reached = ""
				}
				if reached != tc.want || len(g) > 0 && len(i) > 0 {
					t.Fatalf("%s: %d requests to the genuine server, %d to the impostor, want %q:\n%s", run.who, len(g), len(i), tc.want, c.Stderr)
				}
				for _, h := range append(g, i...) {
					if h != pinToken {
						t.Fatalf("%s: a request without the header: %q", run.who, append(g, i...))
					}
				}
				switch {
				case tc.want == "" && run.who == "plain":
					if c.Code != 128 || !strings.Contains(string(c.Stderr), "Couldn't parse CURLOPT_RESOLVE entry 'git.example'") {
						t.Fatalf("plain git (the oracle): exit %d\n%s", c.Code, c.Stderr)
					}
				case tc.want == "":
					failed(t, env, c, "", "", "fatal: unable to access '"+url+"': Couldn't parse CURLOPT_RESOLVE entry 'git.example'")
				default:
					mustRun(t, c, run.who+" clone")
				}
			}
			if tc.want != "" {
				sameRepo(t, env, filepath.Join(work, "ours"), filepath.Join(work, "plain"))
			}
		})
	}
}
