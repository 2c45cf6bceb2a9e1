package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/remote"
)

// The helper's statistics file, as the tests read it.

// durable runs git with the helper's statistics going to a file, and
// returns the run and the statistics lines it added.
func durable(t *testing.T, env []string, dir string, args ...string) (*gittest.Cmd, []remote.BatchStats) {
	t.Helper()
	stats := filepath.Join(t.TempDir(), "stats")
	c := gittest.Exec(t, append(append([]string{}, env...), "GIT_REMOTE_DURABLE_STATS="+stats), dir, nil, "git", args...)
	return c, readStats(t, stats)
}

// readStats reads the helper's statistics file (absent: no fetch batch):
// its batch lines.
func readStats(t *testing.T, path string) []remote.BatchStats {
	t.Helper()
	var out []remote.BatchStats
	for _, line := range statsLines(t, path, false) {
		var s remote.BatchStats
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("stats line %q: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}

// readSessions reads the session lines of the helper's statistics file.
func readSessions(t *testing.T, path string) []remote.SessionStats {
	t.Helper()
	var out []remote.SessionStats
	for _, line := range statsLines(t, path, true) {
		var s remote.SessionStats
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("stats line %q: %v", line, err)
		}
		out = append(out, s)
	}
	return out
}

// statsLines returns the session lines of the statistics file path, or
// its other lines (a batch's each).
func statsLines(t *testing.T, path string, sessions bool) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line != "" && strings.HasPrefix(line, `{"kind":"session"`) == sessions {
			out = append(out, line)
		}
	}
	return out
}

// shallowWriteout is the writeout of $GIT_DIR/shallow that a batch which
// wrote it counts.
func shallowWriteout(s remote.BatchStats) int64 {
	if s.Shallow {
		return 1
	}
	return 0
}

// checkBatches fails unless every fetch batch made its objects durable the
// batch way: a writeout per object written and one hardware flush (none
// when nothing was written; on a filesystem where batch is not sound, the
// fallback's flush per object).
func checkBatches(t *testing.T, stats []remote.BatchStats) {
	t.Helper()
	if len(stats) == 0 {
		t.Fatal("no fetch batch was recorded")
	}
	for _, s := range stats {
		switch {
		case s.Pack != "" && s.Path == "batch":
			// A kept pack: its .pack, .idx, .rev and .keep written out,
			// one flush after the .idx (and the shallow file written out
			// after it, made durable with the refs as the session ends).
			if s.WriteoutOnly != 4+shallowWriteout(s) || s.HardwareFlush != 1 || s.Error != "" {
				t.Errorf("batch %d kept pack %s with %d writeouts, %d hardware flushes", s.Batch, s.Pack, s.WriteoutOnly, s.HardwareFlush)
			}
		case s.Path == "batch":
			flushes := int64(1)
			if s.Written == 0 {
				flushes = 0 // nothing renamed, nothing to flush
			}
			if s.HardwareFlush != flushes || s.WriteoutOnly != int64(s.Written)+shallowWriteout(s) || s.Error != "" {
				t.Errorf("batch %d: %d objects written, %d writeouts, %d hardware flushes; want a writeout each and 1 flush", s.Batch, s.Written, s.WriteoutOnly, s.HardwareFlush)
			}
		case s.Path == "fallback-fsync":
			t.Logf("fallback path (%s)", s.Reason)
			if s.HardwareFlush < int64(s.Written) {
				t.Errorf("fallback: %d objects written, %d flushes", s.Written, s.HardwareFlush)
			}
		default:
			t.Errorf("batch %d ran path %q", s.Batch, s.Path)
		}
	}
}
