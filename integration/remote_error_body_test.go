package integration

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestHTTPErrorBodyBoundedMemory: a server answers every request with a
// 500 whose gzip-encoded body (256 KiB on the wire) inflates to 256 MiB.
// The helper reads a bounded prefix of it: its peak RSS (measured by the
// rusage tool, see rusageSrc) stays under 64 MiB, and it fails as plain
// git fails on the same server.
func TestHTTPErrorBodyBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a 256 MiB body")
	}
	const size = 256 << 20
	var bomb bytes.Buffer
	zw, err := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for i := 0; i < size/len(zeros); i++ {
		zw.Write(zeros)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	url := startHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write(bomb.Bytes())
	})) + "/up.git"
	env := env(t)
	tool := rusageTool(t, t.TempDir())
	local := gittest.Init(t, env, true, "")
	measure := filepath.Join(t.TempDir(), "maxrss")
	cmd := exec.Command(tool, measure, filepath.Join(binDir, "git-remote-durable"), "origin", url)
	cmd.Env = append(append([]string{}, env...), "GIT_DIR="+local)
	cmd.Stdin = strings.NewReader("list\n\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 128 {
		t.Fatalf("helper: %v, want exit 128\n%s", err, stderr.String())
	}
	rss := readRSS(t, measure, stderr.String())
	t.Logf("helper peak RSS on a %d MiB error body: %d MiB; %s", size>>20, rss>>20, strings.TrimSpace(stderr.String()))
	if rss > 64<<20 {
		t.Errorf("helper peak RSS %d MiB on a %d MiB error body, want at most 64 MiB", rss>>20, size>>20)
	}

	plain := gittest.Exec(t, env, "", nil, "git", "ls-remote", url)
	ours := gittest.Exec(t, env, "", nil, "git", "ls-remote", "durable::"+url)
	want := "fatal: unable to access '" + url + "/': The requested URL returned error: 500"
	if r := (result{Cmd: plain}); plain.Code != 128 || r.lastLine() != want {
		t.Errorf("plain git: exit %d, %q, want 128 and %q", plain.Code, r.lastLine(), want)
	}
	failed(t, env, ours, "", "", "fatal: unable to access '"+url+"': The requested URL returned error: 500")
}
