package target

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-durable/git-durable/batch"
)

// WriteTrace2 appends git's trace2 fsync counter events to the
// GIT_TRACE2_EVENT target (an absolute path, or 1/2/true for stderr), so
// that tests written for git (t5351's check_fsync_events) read ours too,
// in the form of the git on PATH: "data" events keyed "fsync/<name>" with
// the count as a string up to git 2.41, "counter" events from 2.42 on.
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
	if st.WriteoutOnly == 0 && st.HardwareFlush == 0 {
		return // nothing to write: no need to ask git its version
	}
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
	sid := fmt.Sprintf("%s-%d", now, os.Getpid())
	counters := counterEvents(gitVersion())
	for _, c := range []struct {
		name  string
		count int64
	}{{"writeout-only", st.WriteoutOnly}, {"hardware-flush", st.HardwareFlush}} {
		if c.count == 0 {
			continue
		}
		ev := map[string]any{"sid": sid, "thread": "main", "time": now, "file": "", "line": 0, "category": "fsync"}
		if counters {
			ev["event"], ev["name"], ev["count"] = "counter", c.name, c.count
		} else {
			ev["event"], ev["repo"], ev["nesting"] = "data", 1, 1
			ev["key"], ev["value"] = "fsync/"+c.name, strconv.FormatInt(c.count, 10)
		}
		line, _ := json.Marshal(ev)
		fmt.Fprintf(w, "%s\n", line)
	}
}

// gitVersion is what "git version" prints, or "" without git.
func gitVersion() string {
	out, err := exec.Command("git", "version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// counterEvents reports whether the git of version v ("git version 2.39.5")
// writes its fsync counters as trace2 counter events (2.42 and later); an
// unknown version gets the newer form.
func counterEvents(v string) bool {
	rest, ok := strings.CutPrefix(v, "git version ")
	if !ok {
		return true
	}
	f := strings.SplitN(rest, ".", 3)
	if len(f) < 2 {
		return true
	}
	major, err1 := strconv.Atoi(f[0])
	minor, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil {
		return true
	}
	return major > 2 || major == 2 && minor >= 42
}
