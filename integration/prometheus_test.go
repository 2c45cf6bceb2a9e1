package integration

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The readers of the runner's metrics, as an operator's host runs them:
// Debian's prometheus-node-exporter (its textfile collector) and promtool
// (package prometheus). A test that needs one skips without it; .ci/run
// installs both.

// nodeExporter returns the path of node_exporter, under Debian's name or
// upstream's, or skips the test.
func nodeExporter(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"prometheus-node-exporter", "node_exporter"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("node_exporter is not installed (Debian: apt-get install prometheus-node-exporter)")
	return ""
}

// scrapeTextfiles runs node_exporter's textfile collector alone on the
// *.prom files of dir, on a port of 127.0.0.1, and returns one scrape of
// it and what the exporter logged (where it reports series it dropped
// while it answers 200); the exporter is killed, by its process id,
// before it returns.
func scrapeTextfiles(t *testing.T, dir string) (scrape, log string) {
	t.Helper()
	bin := nodeExporter(t)
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		cmd := exec.Command(bin, "--collector.disable-defaults", "--collector.textfile",
			"--collector.textfile.directory="+dir, "--web.listen-address=127.0.0.1:"+strconv.Itoa(port))
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		up := listening(port, exited)
		var body string
		if up {
			body = get(t, fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
		}
		cmd.Process.Kill()
		<-exited
		if up {
			return body, errb.String()
		}
		if attempt == 3 {
			t.Fatalf("node_exporter did not start: %s", errb.String())
		}
	}
}

// get is the body of a GET of url, which must answer 200.
func get(t *testing.T, url string) string {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// scrapeClean fails the test unless node_exporter read every file of dir
// (node_textfile_scrape_error 0) and logged no error (a series two files
// hold, a file it could not parse); it returns the scrape.
func scrapeClean(t *testing.T, dir string) string {
	t.Helper()
	s, log := scrapeTextfiles(t, dir)
	if !strings.Contains(s, "\nnode_textfile_scrape_error 0\n") {
		t.Errorf("node_exporter could not read the metrics of %s:\n%s\n%s", dir, s, log)
	}
	if strings.Contains(log, "level=error") {
		t.Errorf("node_exporter's errors:\n%s", log)
	}
	return s
}

// promtoolCheck runs promtool check metrics on content, where promtool is
// installed, and fails the test on any complaint.
func promtoolCheck(t *testing.T, content string) {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		t.Logf("promtool is not installed (Debian: apt-get install prometheus): not checked with it")
		return
	}
	cmd := exec.Command(p, "check", "metrics")
	cmd.Stdin = strings.NewReader(content)
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}
