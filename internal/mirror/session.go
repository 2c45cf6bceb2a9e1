package mirror

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/nofollow"
	"github.com/git-durable/git-durable/internal/report"
)

// session is what the runner reads of the helper's session lines (its
// SessionStats) for one update.
type session struct {
	Result        string `json:"result"`
	Objects       int    `json:"objects"`
	Written       int    `json:"written"`
	Repaired      int64  `json:"repaired"`
	Checked       int    `json:"checked"`
	HardwareFlush int64  `json:"hardware-flush"`
	// Path is how the session synced (batch.Path); of several, the first
	// that left objects unflushed. Settings says how the helper read
	// settings it had to guess at (a typo in core.fsync).
	Path     string `json:"path"`
	Settings string `json:"settings"`
}

// readSessions adds up the session lines of the helper's statistics file
// path (one per fetch of the update: git remote update fetches each
// remote); a missing file holds none.
func readSessions(path string) (sum session, n int) {
	f, err := nofollow.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return sum, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var s session
		if !strings.HasPrefix(sc.Text(), `{"kind":"session"`) || json.Unmarshal(sc.Bytes(), &s) != nil {
			continue
		}
		n++
		sum.Objects += s.Objects
		sum.Written += s.Written
		sum.Repaired += s.Repaired
		sum.Checked += s.Checked
		sum.HardwareFlush += s.HardwareFlush
		if sum.Path == "" || notFlushed(s.Path) && !notFlushed(sum.Path) {
			sum.Path = s.Path
		}
		if s.Settings != "" {
			sum.Settings = s.Settings
		}
	}
	return sum, n
}

// quiet reports whether the statistics line l is a session's that fetched
// nothing and repaired nothing: the runner's log needs no line for it.
func quiet(l []byte) bool {
	var s struct {
		Kind, Result      string
		Repaired, Checked int64
	}
	return json.Unmarshal(l, &s) == nil && s.Kind == "session" && s.Result == "up-to-date" && s.Repaired == 0 && s.Checked == 0
}

// statsName, in each git directory, is where the helper's session lines of
// the update running there go, under the repository's lock: what a killed
// runner's git wrote there is read and passed on by the next update.
const statsName = "durable-update.stats"

// keepStats passes the helper's lines in the file path, left by an
// update, on to the statistics file the runner was given (report.StatsEnv,
// an absolute path), if any — but the session lines of fetches that found
// nothing to do and repaired nothing, so that a mirror's log grows with
// its news, not with the runs — and removes it.
// It returns what stood in the way of writing them, "" if nothing did.
// The file is never read or written through a symbolic link: a link at
// its name (planted by someone who can write in the repository) is
// removed unread, as the runner's own file of the moment. Where git
// failed after the helper's sessions said they fetched (its check of what
// came, its update of the refs), failed says why: each such session line
// says "failed" then, with git's line.
func keepStats(path string, failed error) string {
	b, err := nofollow.ReadFile(path)
	if err != nil || len(b) == 0 {
		os.Remove(path)
		return ""
	}
	to := os.Getenv(report.StatsEnv)
	var keep []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if failed != nil && bytes.HasPrefix(l, []byte(`{"kind":"session"`)) {
			l = failedSession(l, failed)
		}
		if len(l) > 0 && !quiet(l) {
			keep = append(keep, l...)
		}
	}
	var note string
	if to != "" && len(keep) > 0 {
		if !filepath.IsAbs(to) {
			note = "statistics not written: " + report.StatsEnv + " is not an absolute path"
		} else if err := appendTo(to, keep); err != nil {
			note = "statistics not written: " + err.Error()
		}
	}
	os.Remove(path)
	return note
}

// appendTo appends b to the file path, created where missing, never
// through a symbolic link.
func appendTo(path string, b []byte) error { return nofollow.Append(path, b, 0o666) }

// statsTarget is the runner's own statistics file (report.StatsEnv), where
// a mend in this process adds its lines; "" where there is none, or it is
// not an absolute path.
func statsTarget() string {
	if to := os.Getenv(report.StatsEnv); filepath.IsAbs(to) {
		return to
	}
	return ""
}

// failedSession is the session line l of a fetch that git failed after
// (err, git's line): where it says "fetched" or "up-to-date", "failed",
// with the error git's.
func failedSession(l []byte, err error) []byte {
	msg, _ := json.Marshal(mask.OneLine(err.Error()))
	for _, r := range []string{`"result":"fetched"`, `"result":"up-to-date"`} {
		if bytes.Contains(l, []byte(r)) {
			return bytes.Replace(l, []byte(r), append([]byte(`"result":"failed","error":`), msg...), 1)
		}
	}
	return l
}
