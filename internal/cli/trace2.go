package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/git-durable/git-durable/batch"
)

// WriteTrace2 appends git's trace2 fsync counter events to the
// GIT_TRACE2_EVENT target (an absolute path, or 1/2/true for stderr), so
// that tests written for git (t5351's check_fsync_events) read ours too.
// Like git, it writes only counters that are not zero.
func WriteTrace2(target string, stderr io.Writer, st batch.Stats) {
	var w io.Writer
	switch {
	case target == "1" || target == "2" || target == "true":
		w = stderr
	case filepath.IsAbs(target):
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
		if err != nil {
			return
		}
		defer f.Close()
		w = f
	default:
		return
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
	sid := fmt.Sprintf("%s-%d", now, os.Getpid())
	for _, c := range []struct {
		name  string
		count int64
	}{{"writeout-only", st.WriteoutOnly}, {"hardware-flush", st.HardwareFlush}} {
		if c.count == 0 {
			continue
		}
		line, _ := json.Marshal(map[string]any{"event": "counter", "sid": sid, "thread": "main", "time": now,
			"file": "", "line": 0, "category": "fsync", "name": c.name, "count": c.count})
		fmt.Fprintf(w, "%s\n", line)
	}
}
