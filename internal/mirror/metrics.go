package mirror

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// session is what the runner reads of the helper's session lines
// (remote.SessionStats) for one update.
type session struct {
	Result        string `json:"result"`
	Objects       int    `json:"objects"`
	Written       int    `json:"written"`
	Repaired      int64  `json:"repaired"`
	Checked       int    `json:"checked"`
	HardwareFlush int64  `json:"hardware-flush"`
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
	}
	return sum, n
}

// metric is one series of the metrics file.
type metric struct {
	name, help string
	value      func(r result) (float64, bool)
}

var metrics = []metric{
	{"git_durable_update_success", "1 if the last update of the mirror succeeded, 0 if it failed.", func(r result) (float64, bool) {
		return map[bool]float64{true: 1, false: 0}[r.err == nil], !r.skipped
	}},
	{"git_durable_update_last_run_timestamp_seconds", "When the last update of the mirror began.", func(r result) (float64, bool) {
		return float64(r.start.Unix()), !r.skipped
	}},
	{"git_durable_update_duration_seconds", "How long the last update of the mirror took.", func(r result) (float64, bool) {
		return r.took.Seconds(), !r.skipped
	}},
	{"git_durable_update_refused", "1 if the runner left the mirror untouched: git would not take it as the runner's user's (safe.directory), its .git leads out of the tree, or its lock file is not one.", func(r result) (float64, bool) {
		return map[bool]float64{true: 1, false: 0}[refused(r.err)], !r.skipped
	}},
	{"git_durable_update_objects_written", "Objects the last update wrote.", func(r result) (float64, bool) {
		return float64(r.helper.Written), r.sessions > 0
	}},
	{"git_durable_update_objects_repaired", "Broken objects the last update replaced.", func(r result) (float64, bool) {
		return float64(r.helper.Repaired), r.sessions > 0
	}},
	{"git_durable_update_hardware_flushes", "Device cache flushes of the last update.", func(r result) (float64, bool) {
		return float64(r.helper.HardwareFlush), r.sessions > 0
	}},
}

// lastSuccess names the series that keeps, from run to run, when each
// mirror was last updated: an alert on its age catches a mirror that
// keeps failing.
const lastSuccess = "git_durable_update_last_success_timestamp_seconds"

// writeMetrics writes the metrics of a run to path in Prometheus' text
// format (node_exporter's textfile collector reads it), through a
// temporary file renamed into place: a reader never sees half of it. The
// time of each mirror's last success is carried over from the file the
// last run wrote, by its label (labelValue).
func writeMetrics(path string, repos []target, results []result) error {
	last := readLastSuccess(path)
	for i, r := range results {
		if !r.skipped && r.err == nil {
			last[labelValue(repos[i].dir)] = float64(r.start.Unix())
		}
	}
	var b strings.Builder
	for _, m := range metrics {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", m.name, m.help, m.name)
		for i, t := range repos {
			if v, ok := m.value(results[i]); ok {
				fmt.Fprintf(&b, "%s{repository=%s} %s\n", m.name, quoteLabel(labelValue(t.dir)), strconv.FormatFloat(v, 'f', -1, 64))
			}
		}
	}
	fmt.Fprintf(&b, "# HELP %s When the mirror was last updated without error.\n# TYPE %s gauge\n", lastSuccess, lastSuccess)
	dirs := make([]string, 0, len(last))
	for dir := range last {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		fmt.Fprintf(&b, "%s{repository=%s} %s\n", lastSuccess, quoteLabel(dir), strconv.FormatFloat(last[dir], 'f', -1, 64))
	}
	failed := 0
	for _, r := range results {
		if r.err != nil {
			failed++
		}
	}
	fmt.Fprintf(&b, "# HELP git_durable_update_failed Mirrors whose last update failed.\n# TYPE git_durable_update_failed gauge\ngit_durable_update_failed %d\n", failed)
	fmt.Fprintf(&b, "# HELP git_durable_run_timestamp_seconds When the runner last finished.\n# TYPE git_durable_run_timestamp_seconds gauge\ngit_durable_run_timestamp_seconds %d\n", time.Now().Unix())
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(b.String())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// readLastSuccess reads the lastSuccess series of the metrics file path,
// by label value.
func readLastSuccess(path string) map[string]float64 {
	last := map[string]float64{}
	b, err := os.ReadFile(path)
	if err != nil {
		return last
	}
	for _, l := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(l, lastSuccess+"{repository=")
		if !ok {
			continue
		}
		i := strings.LastIndex(rest, "} ")
		if i < 0 {
			continue
		}
		dir, err := strconv.Unquote(rest[:i])
		v, verr := strconv.ParseFloat(rest[i+2:], 64)
		if err == nil && verr == nil {
			last[dir] = v
		}
	}
	return last
}

// quoteLabel quotes a label value as Prometheus' text format does: a
// backslash, a double quote and a newline escaped.
func quoteLabel(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
