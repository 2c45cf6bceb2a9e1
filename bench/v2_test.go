package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonLogV2 clones from a real git daemon on protocol v2 and on v0:
// the log check passes the first and refuses the second, so that a row
// whose client fell back to v0 fails instead of being measured.
func TestDaemonLogV2(t *testing.T) {
	base := t.TempDir()
	up := filepath.Join(base, "up.git")
	if err := run("", nil, "git", "init", "-q", "--bare", "-b", "main", up); err != nil {
		t.Fatal(err)
	}
	fi := "commit refs/heads/main\ncommitter T <t@example.com> 1700000000 +0000\ndata 2\nc\nM 100644 inline f\ndata 2\nf\n"
	if err := run(up, strings.NewReader(fi), "git", "fast-import", "--quiet"); err != nil {
		t.Fatal(err)
	}
	d, err := startLoggedDaemon(base, filepath.Join(t.TempDir(), "daemon.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.stop()
	clone := func(version, dest string) {
		t.Helper()
		if err := run("", nil, "git", "-c", "protocol.version="+version, "clone", "-q", "--mirror", d.url("up.git"), filepath.Join(base, dest)); err != nil {
			t.Fatal(err)
		}
	}
	d.log.skip()
	if err := d.log.check(); err == nil || !strings.Contains(err.Error(), "no upload-pack request") {
		t.Fatalf("check with no request: %v, want an error", err)
	}
	clone("2", "a.git")
	if err := d.log.check(); err != nil {
		t.Fatalf("check after a v2 clone: %v", err)
	}
	clone("0", "b.git")
	if err := d.log.check(); err == nil || !strings.Contains(err.Error(), "did not ask for protocol v2") {
		t.Fatalf("check after a v0 clone: %v, want an error", err)
	}
	if d.log.requests != 1 {
		t.Fatalf("%d requests counted, want the v2 clone's 1", d.log.requests)
	}
}
