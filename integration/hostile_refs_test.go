package integration

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// TestMillionRefsBoundedMemory: an upstream that advertises 1,000,000 refs,
// over git:// and smart HTTP (also with "; charset=utf-8" after the
// advertisement's media type, which git takes for the same), is listed by
// the helper in bounded memory (each ref is written to git as it is read,
// none kept), and git ls-remote through durable:: prints exactly what plain
// git prints.
func TestMillionRefsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("a million refs")
	}
	const n = 1000000
	env := env(t)
	base := t.TempDir()
	up := filepath.Join(base, "up.git")
	gittest.Git(t, env, base, "init", "-q", "--bare", "-b", "main", up)
	gittest.History(t, env, up, 1, 1)
	tip := strings.TrimSpace(gittest.Git(t, env, up, "rev-parse", "main"))
	f, err := os.Create(filepath.Join(up, "packed-refs"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# pack-refs with: peeled fully-peeled sorted \n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "%s refs/heads/b%07d\n", tip, i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tool := rusageTool(t, t.TempDir())
	for _, up := range []struct{ name, url string }{
		{"git", fmt.Sprintf("git://127.0.0.1:%d/up.git", startDaemon(t, env, base))},
		{"http", startHTTP(t, httpBackend(t, env, base)) + "/up.git"},
		{"http-charset", startHTTP(t, withCharset(httpBackend(t, env, base))) + "/up.git"},
	} {
		t.Run(up.name, func(t *testing.T) {
			listMillion(t, env, tool, base, up.url, n)
		})
	}
}

// listMillion lists the n refs of url through the helper alone, as git
// runs it for ls-remote, to bound its peak RSS (measured by the rusage
// tool: see rusageSrc), then compares git ls-remote through durable:: with
// plain git's (HEAD where its target is, see headAt).
func listMillion(t *testing.T, env []string, tool, base, url string, n int) {
	local := gittest.Init(t, env, true, "")
	measure := filepath.Join(t.TempDir(), "maxrss")
	cmd := exec.Command(tool, measure, filepath.Join(binDir, "git-remote-durable"), "origin", url)
	cmd.Env = append(append([]string{}, env...), "GIT_DIR="+local)
	cmd.Stdin = strings.NewReader("list\n\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, stderr.String())
	}
	if got := strings.Count(string(out), "\n"); got != n+3 { // HEAD, main, the refs, the blank line
		t.Fatalf("the helper listed %d lines, want %d", got, n+3)
	}
	rss := readRSS(t, measure, stderr.String())
	t.Logf("helper peak RSS listing %d refs: %d MiB", n, rss>>20)
	if rss > 64<<20 {
		t.Errorf("helper peak RSS %d MiB listing %d refs, want at most 64 MiB", rss>>20, n)
	}
	plain := gittest.Exec(t, env, base, nil, "git", "ls-remote", url)
	ours := gittest.Exec(t, env, base, nil, "git", "ls-remote", "durable::"+url)
	// A million refs come before HEAD's target (refs/heads/main): the
	// helper, which cannot hold them all back, lists HEAD where main is.
	if want := headAt(string(plain.Stdout), "refs/heads/main"); plain.Code != 0 || ours.Code != 0 || string(ours.Stdout) != want {
		t.Errorf("ls-remote: git exit %d (%d bytes), ours exit %d (%d bytes)\n%s", plain.Code, len(plain.Stdout), ours.Code, len(ours.Stdout), ours.Stderr)
	}
}

// headAt returns an ls-remote listing with its HEAD line moved to just
// before target's.
func headAt(list, target string) string {
	lines := strings.SplitAfter(list, "\n")
	var head string
	var rest []string
	for _, l := range lines {
		if strings.HasSuffix(l, "\tHEAD\n") && head == "" {
			head = l
		} else {
			rest = append(rest, l)
		}
	}
	var out strings.Builder
	for _, l := range rest {
		if strings.HasSuffix(l, "\t"+target+"\n") {
			out.WriteString(head)
		}
		out.WriteString(l)
	}
	return out.String()
}
