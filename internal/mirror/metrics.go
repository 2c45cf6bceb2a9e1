package mirror

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// metric is one series per mirror of the metrics file. keep carries the
// last value over for a mirror the run skipped (another run held it), so
// that its alerts neither clear nor lose their series.
type metric struct {
	name, help string
	keep       bool
	value      func(r result) (float64, bool)
}

// oneIf is 1 for true, 0 for false.
func oneIf(b bool) float64 { return map[bool]float64{true: 1, false: 0}[b] }

var metrics = []metric{
	{"git_durable_update_success", "1 if the last update of the mirror succeeded, 0 if it failed.", true, func(r result) (float64, bool) {
		return oneIf(r.err == nil), true
	}},
	{"git_durable_update_durable", "1 if the last update of the mirror succeeded and wrote durably: every remote fetches through durable:: with syncing on.", true, func(r result) (float64, bool) {
		return oneIf(r.err == nil && r.notDurable == ""), true
	}},
	{"git_durable_update_refused", "1 if the runner left the mirror untouched: git would not take it as the runner's user's (safe.directory), its .git leads out of the tree, or its lock file is not one.", true, func(r result) (float64, bool) {
		return oneIf(refused(r.err)), true
	}},
	{"git_durable_update_skipped", "1 if the last run skipped the mirror, which another update held; its other series are those of the update before.", false, func(r result) (float64, bool) {
		return oneIf(r.skipped), true
	}},
	{"git_durable_update_last_run_timestamp_seconds", "When the last update of the mirror began.", true, func(r result) (float64, bool) {
		return float64(r.start.Unix()), true
	}},
	{"git_durable_update_duration_seconds", "How long the last update of the mirror took.", true, func(r result) (float64, bool) {
		return r.took.Seconds(), true
	}},
	{"git_durable_update_objects_written", "Objects the last update wrote.", true, func(r result) (float64, bool) {
		return float64(r.helper.Written), r.sessions > 0
	}},
	{"git_durable_update_objects_repaired", "Broken objects the last update replaced.", true, func(r result) (float64, bool) {
		return float64(r.helper.Repaired), r.sessions > 0
	}},
	{"git_durable_update_hardware_flushes", "Device cache flushes of the last update.", true, func(r result) (float64, bool) {
		return float64(r.helper.HardwareFlush), r.sessions > 0
	}},
}

// lastSuccess names the series that keeps, from run to run, when each
// mirror was last updated (0: never): an alert on its age catches a
// mirror that keeps failing.
const lastSuccess = "git_durable_update_last_success_timestamp_seconds"

// writeMetrics writes the metrics of a run to path in Prometheus' text
// format (node_exporter's textfile collector reads it), through a
// temporary file renamed into place: a reader never sees half of it. Every
// series carries the label runner (the run's label), so that the files of
// several runners in one directory never hold the same series; the
// mirrors' series carry repository too (labelValue). What the last run
// wrote is carried over by its labels: each mirror's last success, and
// every series of a mirror this run skipped.
func writeMetrics(path, label string, repos []target, results []result) error {
	prev := readMetrics(path)
	run := "runner=" + quoteLabel(label)
	var b strings.Builder
	gauge := func(name, help string) { fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name) }
	sample := func(name, labels, value string) { fmt.Fprintf(&b, "%s{%s} %s\n", name, labels, value) }
	labels := make([]string, len(repos))
	for i, t := range repos {
		labels[i] = run + ",repository=" + quoteLabel(labelValue(t.dir))
	}
	for _, m := range metrics {
		gauge(m.name, m.help)
		for i, r := range results {
			if r.skipped && m.keep {
				if v, ok := prev[m.name][labels[i]]; ok {
					sample(m.name, labels[i], v)
				}
			} else if v, ok := m.value(r); ok {
				sample(m.name, labels[i], number(v))
			}
		}
	}
	last := map[string]string{}
	for l, v := range prev[lastSuccess] {
		if strings.HasPrefix(l, run+",") {
			last[l] = v
		}
	}
	failed, skipped := 0, 0
	for i, r := range results {
		switch {
		case r.skipped:
			skipped++
		case r.err != nil:
			failed++
		default:
			last[labels[i]] = number(float64(r.start.Unix()))
		}
		if _, ok := last[labels[i]]; !ok {
			last[labels[i]] = "0"
		}
	}
	gauge(lastSuccess, "When the mirror was last updated without error; 0 if it never was.")
	for _, l := range sortedKeys(last) {
		sample(lastSuccess, l, last[l])
	}
	gauge("git_durable_update_failed", "Mirrors whose last update failed.")
	sample("git_durable_update_failed", run, strconv.Itoa(failed))
	gauge("git_durable_update_skipped_mirrors", "Mirrors the last run skipped: another update held them.")
	sample("git_durable_update_skipped_mirrors", run, strconv.Itoa(skipped))
	gauge("git_durable_run_timestamp_seconds", "When the runner last finished.")
	sample("git_durable_run_timestamp_seconds", run, strconv.FormatInt(time.Now().Unix(), 10))
	return writeFile(path, b.String())
}

// number is v as the text format writes it.
func number(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// sortedKeys are the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeFile replaces path with content through a temporary file in its
// directory whose name does not end in .prom (node_exporter reads only
// those), renamed into place.
func writeFile(path, content string) error {
	// What a runner killed while it wrote left: no run writes for so long.
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*"))
	for _, f := range left {
		if st, err := os.Lstat(f); err == nil && st.Mode().IsRegular() && time.Since(st.ModTime()) > time.Hour {
			os.Remove(f)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(content)
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

// readMetrics reads the samples of the metrics file path as this package
// writes them: by name, then by the text of their labels, the text of
// their value.
func readMetrics(path string) map[string]map[string]string {
	out := map[string]map[string]string{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(l, "{")
		i := strings.LastIndex(rest, "} ")
		if !ok || strings.HasPrefix(l, "#") || i < 0 {
			continue
		}
		if out[name] == nil {
			out[name] = map[string]string{}
		}
		out[name][rest[:i]] = rest[i+2:]
	}
	return out
}

// quoteLabel quotes a label value as Prometheus' text format does: a
// backslash, a double quote and a newline escaped.
func quoteLabel(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
