package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
)

// targets collects the checks of the real-history mode, printed last.
type targets struct{ lines []string }

func (t *targets) check(name string, ok bool, detail string) {
	mark := "met"
	if !ok {
		mark = "NOT met"
	}
	t.lines = append(t.lines, fmt.Sprintf("- %s: %s (%s)", name, mark, detail))
}

func (t *targets) note(format string, args ...any) {
	t.lines = append(t.lines, "- "+fmt.Sprintf(format, args...))
}

// explode checks the rows of the real pack.
func (t *targets) explode(st map[string]stats) {
	if r, ok := ratio(st, "ours none", "git none"); ok {
		t.check("ours none ≤ 0.5× git none", r <= 0.5, fmt.Sprintf("%.2f×", r))
	}
	if r, ok := ratio(st, "ours batch", "git batch"); ok {
		t.note("ours batch vs git batch: %.2f× (%.2f s against %.2f s)", r, st["ours batch"].wall, st["git batch"].wall)
	}
	if r, ok := ratio(st, "ours batch", "ours none + sync -f"); ok {
		t.check("ours batch ≤ 1.25× the floor (ours none + sync -f)", r <= 1.25, fmt.Sprintf("%.2f×: %.2f s against %.2f s", r, st["ours batch"].wall, st["ours none + sync -f"].wall))
	}
	if r, ok := ratio(st, "ours keep", "git index-pack"); ok {
		t.check("ours keep ≤ 1.0× git index-pack --stdin", r <= 1.0, fmt.Sprintf("%.2f×", r))
	}
}

// transfers prints the clone and fetch rows and checks them; either may
// not have been measured (-rows).
func (t *targets) transfers(w io.Writer, clone, fetch transfers) {
	var vs []variant
	st := map[string]stats{}
	if len(clone.ours) > 0 {
		vs = append(vs, variant{name: "ours clone --mirror", base: "git clone --mirror"}, variant{name: "git clone --mirror"})
		st[vs[0].name], st[vs[1].name] = summarize(clone.ours), summarize(clone.git)
	}
	if len(fetch.ours) > 0 {
		vs = append(vs, variant{name: "ours fetch", base: "git fetch"}, variant{name: "git fetch"})
		st["ours fetch"], st["git fetch"] = summarize(fetch.ours), summarize(fetch.git)
	}
	table(w, vs, st)
	ch, fh := medianKB(clone.helperKB), medianKB(fetch.helperKB)
	fmt.Fprintf(w, "\nmax RSS is the largest process of the command (git and its children); git-remote-durable's own: %.0f MiB (clone), %.0f MiB (fetch)\n", ch, fh)
	if r, ok := ratio(st, "ours clone --mirror", "git clone --mirror"); ok {
		t.check("ours clone --mirror ≤ 1.2× git clone --mirror", r <= 1.2, fmt.Sprintf("%.2f×", r))
		t.check("helper peak RSS ≤ 128 MiB (clone)", ch <= 128, fmt.Sprintf("%.0f MiB", ch))
	}
	if r, ok := ratio(st, "ours fetch", "git fetch"); ok {
		t.check("ours mirror fetch ≤ 1.5× git fetch", r <= 1.5, fmt.Sprintf("%.2f×", r))
	}
}

// tiny prints the 3-object pack's row and checks it.
func (t *targets) tiny(ours, git []float64, traced []sample) {
	o, g := median(ours)*1e3, median(git)*1e3
	pct := func(xs []float64, p float64) float64 {
		s := slices.Clone(xs)
		sort.Float64s(s)
		return s[int(p*float64(len(s)-1))] * 1e3
	}
	fmt.Printf("\n3-object pack, batch, %d invocations each (alternating, fresh repository, sync before each): ours %.1f ms (p10 %.1f, p90 %.1f), git %.1f ms (p10 %.1f, p90 %.1f); max RSS ours %d MiB, git %d MiB; writeout-only/hardware-flush ours %d/%d, git %d/%d\n",
		len(ours), o, pct(ours, 0.1), pct(ours, 0.9), g, pct(git, 0.1), pct(git, 0.9),
		traced[0].rssKB/1024, traced[1].rssKB/1024, traced[0].writeouts, traced[0].flushes, traced[1].writeouts, traced[1].flushes)
	t.check("3 objects: ours ≤ git + 5 ms", o <= g+5, fmt.Sprintf("%.1f ms against %.1f ms, %+.1f ms", o, g, o-g))
}

// scaling checks the curve.
func (t *targets) scaling(none, batch, noneMiB, batchMiB float64) {
	t.check("time per object, largest pack ≤ 1.2× smallest (none)", none <= 1.2, fmt.Sprintf("%.2f×", none))
	t.check("time per object, largest pack ≤ 1.2× smallest (batch)", batch <= 1.2, fmt.Sprintf("%.2f×", batch))
	t.check("time per MiB of contents, largest pack ≤ 1.2× smallest (none)", noneMiB <= 1.2, fmt.Sprintf("%.2f×", noneMiB))
	t.check("time per MiB of contents, largest pack ≤ 1.2× smallest (batch)", batchMiB <= 1.2, fmt.Sprintf("%.2f×", batchMiB))
}

func (t *targets) print(w io.Writer) {
	fmt.Fprintf(w, "\ntargets (real history):\n")
	for _, l := range t.lines {
		fmt.Fprintln(w, l)
	}
}
