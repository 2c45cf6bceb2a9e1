//go:build linux

package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/blocktest"
)

// TestDemoExplainsFallback runs make demo in a temporary directory on an
// ext4 without a journal, where the batch scheme is not sound and the
// fallback runs: the demo, which announces batch, must say why the result
// reads fallback-fsync — once — and, on a tmpfs, where batch runs, say
// nothing of the kind. Either way it says each fetch's batch and then the
// fetch as a whole.
func TestDemoExplainsFallback(t *testing.T) {
	for _, tool := range []string{"make", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: %v", tool, err)
		}
	}
	fsys := blocktest.Ext4(64 << 20)
	fsys.Mkfs = append(append([]string{}, fsys.Mkfs...), "-O", "^has_journal")
	noJournal := blocktest.MountScratch(t, fsys)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	const why = "-> path fallback-fsync, not batch: filesystem ext4 without a journal is not known to make written-out data durable with a later rename"
	for _, tc := range []struct {
		dir     string
		explain bool
	}{{noJournal, true}, {"/dev/shm", false}} {
		if st, err := os.Stat(tc.dir); err != nil || !st.IsDir() {
			t.Logf("no %s: %v", tc.dir, err)
			continue
		}
		cmd := exec.Command("make", "-s", "-C", root, "demo", "BIN="+bin)
		cmd.Env = append(os.Environ(), "TMPDIR="+tc.dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make demo in %s: %v\n%s", tc.dir, err, out)
		}
		if n := strings.Count(string(out), why); tc.explain && n != 1 || !tc.explain && strings.Contains(string(out), "fallback-fsync") {
			t.Errorf("make demo in %s: %d explanations\n%s", tc.dir, n, out)
		}
		// What durability costs: the same fetch into loose objects three
		// ways — git's defaults, git's fsync of each object, the helper —
		// the same objects, a flush per object for git's fsync, a few for
		// the helper.
		costs := regexp.MustCompile(`(?m)^(plain git \(its defaults|plain git, core\.fsync|through the helper).* +[0-9.]+ s, +(\d+) device flushes, (\d+) loose objects$`).FindAllStringSubmatch(string(out), -1)
		if len(costs) != 3 || costs[0][3] != costs[2][3] || costs[1][3] != costs[2][3] || atoi(costs[1][2]) < atoi(costs[1][3]) || atoi(costs[2][2]) > 10 || atoi(costs[2][3]) < 1000 {
			t.Errorf("make demo in %s: what durability costs: %q\n%s", tc.dir, costs, out)
		}
		// The clone and the fetch: a batch line each, then the session's
		// line, which is not a second batch.
		if b, w := strings.Count(string(out), "\nfetch batch: "), strings.Count(string(out), "\nthe whole fetch (fetched): "); b != 2 || w != 2 {
			t.Errorf("make demo in %s: %d fetch batches and %d sessions said, want 2 and 2\n%s", tc.dir, b, w, out)
		}
	}
}

// atoi is s as a number, -1 where it is none.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}
