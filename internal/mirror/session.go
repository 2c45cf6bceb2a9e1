package mirror

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
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
	f, err := os.Open(path)
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
