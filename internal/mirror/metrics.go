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

// writeMetrics writes the metrics of a run to path in Prometheus' text
// format (node_exporter's textfile collector reads it), through a
// temporary file renamed into place: a reader never sees half of it. Every
// series carries the label runner (the run's label), so that the files of
// several runners in one directory never hold the same series; the
// mirrors' series carry repository too (labelValue). What the last run
// wrote is carried over by its labels: each mirror's last success, and
// every series of a mirror this run skipped.
func writeMetrics(path, label string, fam family, repos []target, results []result, unreadable int) error {
	prev := readMetrics(path)
	run := "runner=" + quoteLabel(label)
	var b strings.Builder
	gauge := func(name, help string) { fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name) }
	sample := func(name, labels, value string) { fmt.Fprintf(&b, "%s{%s} %s\n", name, labels, value) }
	labels := make([]string, len(repos))
	for i, t := range repos {
		labels[i] = run + ",repository=" + quoteLabel(labelValue(t.dir))
	}
	for _, m := range fam.mirrors {
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
	for l, v := range prev[fam.last] {
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
	gauge(fam.last, "When the mirror last passed without error; 0 if it never did.")
	for _, l := range sortedKeys(last) {
		sample(fam.last, l, last[l])
	}
	gauge(fam.failed, "Mirrors that failed in the last run.")
	sample(fam.failed, run, strconv.Itoa(failed))
	gauge(fam.skipped, "Mirrors the last run skipped: another run held them.")
	sample(fam.skipped, run, strconv.Itoa(skipped))
	gauge(fam.unreadable, "Directories under the roots the last run could not read and passed over (no repositories: lost+found, another user's).")
	sample(fam.unreadable, run, strconv.Itoa(unreadable))
	gauge(fam.finished, "When the runner last finished.")
	sample(fam.finished, run, strconv.FormatInt(time.Now().Unix(), 10))
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
