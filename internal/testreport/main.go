// Command testreport turns the events of go test -json on stdin into what
// make test shows while it runs: a line per top-level test as it ends
// (PASS, FAIL or SKIP, with its time), the reason of every skip — a
// subtest's too, so that a test passed with parts of it skipped says so —
// the whole output of every failure, and a line per package; a summary at
// the end.
// It exits 1 when a test or a package failed, or the stream said nothing.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of go test -json (test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// report is what the events said so far.
type report struct {
	out                  io.Writer
	logs                 map[string][]string // a running test's output, by package and test
	passed, failed, skip int
	pkgFailed            bool
	skips                []string
	subSkips             []string       // skipped subtests, with their reasons
	subSkipped           map[string]int // skipped subtests, by package and top-level test
}

func main() {
	r := newReport(os.Stdout)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	seen := false
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Fprintln(r.out, sc.Text()) // a build error, said as it is
			continue
		}
		seen = true
		r.see(e)
	}
	r.summary()
	if !seen || r.failed > 0 || r.pkgFailed {
		os.Exit(1)
	}
}

// newReport is a report written to out.
func newReport(out io.Writer) *report {
	return &report{out: out, logs: map[string][]string{}, subSkipped: map[string]int{}}
}

// summary is the report's last lines: the counts, then every skip.
func (r *report) summary() {
	fmt.Fprintf(r.out, "\n%d tests passed, %d failed, %d skipped", r.passed, r.failed, r.skip)
	if len(r.subSkips) > 0 {
		fmt.Fprintf(r.out, "; %d subtests skipped", len(r.subSkips))
	}
	fmt.Fprintln(r.out)
	for _, s := range r.skips {
		fmt.Fprintln(r.out, "  skipped: "+s)
	}
	for _, s := range r.subSkips {
		fmt.Fprintln(r.out, "  skipped subtest: "+s)
	}
}

// see takes one event.
func (r *report) see(e event) {
	key := e.Package + " " + e.Test
	switch {
	case e.Action == "build-output":
		fmt.Fprint(r.out, e.Output) // a package that does not build, said as it is
	case e.Action == "build-fail":
		r.pkgFailed = true
	case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
		word := map[string]string{"pass": "ok  ", "fail": "FAIL", "skip": "ok  "}[e.Action]
		fmt.Fprintf(r.out, "%s %s (%.1fs)\n", word, e.Package, e.Elapsed)
		if e.Action == "fail" {
			r.pkgFailed = true
			for _, l := range r.logs[key] {
				fmt.Fprint(r.out, "    "+l)
			}
		}
		delete(r.logs, key)
	case e.Action == "output":
		r.logs[key] = append(r.logs[key], e.Output)
		if top, ok := topKey(e); ok {
			// A subtest's lines belong to its top-level test too.
			r.logs[top] = append(r.logs[top], e.Output)
		}
	case strings.Contains(e.Test, "/"):
		// Subtests are told with their top-level test; a skipped one
		// is counted, and its reason kept, for the summary.
		if e.Action == "skip" {
			why := reason(r.logs[key])
			r.subSkips = append(r.subSkips, e.Test+": "+why)
			top, _ := topKey(e)
			r.subSkipped[top]++
		}
		if e.Action == "pass" || e.Action == "fail" || e.Action == "skip" {
			delete(r.logs, key)
		}
	case e.Action == "pass":
		r.passed++
		if n := r.subSkipped[key]; n > 0 {
			fmt.Fprintf(r.out, "  PASS %s (%.1fs; %d of its subtests skipped)\n", e.Test, e.Elapsed, n)
		} else {
			fmt.Fprintf(r.out, "  PASS %s (%.1fs)\n", e.Test, e.Elapsed)
		}
		delete(r.logs, key)
	case e.Action == "skip":
		r.skip++
		why := reason(r.logs[key])
		fmt.Fprintf(r.out, "  SKIP %s: %s\n", e.Test, why)
		r.skips = append(r.skips, e.Test+": "+why)
		delete(r.logs, key)
	case e.Action == "fail":
		r.failed++
		fmt.Fprintf(r.out, "  FAIL %s (%.1fs)\n", e.Test, e.Elapsed)
		for _, l := range r.logs[key] {
			fmt.Fprint(r.out, "    "+l)
		}
		delete(r.logs, key)
	}
}

// topKey is the key of a subtest's top-level test (package and name), and
// whether e is of a subtest.
func topKey(e event) (string, bool) {
	top, _, sub := strings.Cut(e.Test, "/")
	return e.Package + " " + top, sub
}

// reason is what a skipped test said: its log lines but go test's own.
func reason(lines []string) string {
	var why []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		why = append(why, t)
	}
	if len(why) == 0 {
		return "(no reason given)"
	}
	return strings.Join(why, " ")
}
