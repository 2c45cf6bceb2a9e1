package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// shapeResult is what was measured on one shape's pack.
type shapeResult struct {
	shape serverShape
	info  shape
	st    map[string]stats // the rows of shapeVariants, and the clone's
	rss   float64          // the helper's own peak RSS in the clone, MiB
}

// The rows of a shape's clone.
const (
	oursClone = "ours clone --mirror"
	gitClone  = "git clone --mirror"
)

// measureShapes measures the history of sel as each shape of c.shapes
// has git daemon send it: explode (none, batch, the floor) and --keep
// beside git on the pack a clone received, and a mirror clone through the
// helper beside plain git, each as c.rows chooses. revs, when given,
// holds the rows already measured on the bench's own pack (the revs
// shape), clone its clone.
func measureShapes(r *runner, c realConfig, src string, sel selection, revs map[string]stats, clone *transfers, t *targets) error {
	b := &shapeBench{r: r, c: c, src: src, sel: sel, revs: revs, clone: clone}
	for _, ref := range sel.refs {
		if id, ok := strings.CutPrefix(ref, "refs/heads/main "); ok {
			b.want = id
		}
	}
	base := filepath.Join(r.work, "shapes")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return err
	}
	var err error
	if b.d, b.shim, err = serve(base, "", c.helper); err != nil {
		return err
	}
	defer b.d.stop()
	chosen := map[string]bool{}
	for _, n := range strings.Split(c.shapes, ",") {
		chosen[strings.TrimSpace(n)] = true
	}
	var results []shapeResult
	for _, s := range serverShapes() {
		if !chosen[s.name] {
			continue
		}
		res, err := b.measure(s)
		if err != nil {
			return err
		}
		results = append(results, res)
	}
	if len(results) > 0 {
		shapeSummary(os.Stdout, results, t)
	}
	return nil
}

// shapeBench is what the shapes of one selection share: the history, the
// daemon that serves their upstreams and the helper shim beside them, and
// what the revs shape reuses.
type shapeBench struct {
	r     *runner
	c     realConfig
	src   string    // the history
	sel   selection // the selection every shape's upstream holds
	want  string    // the commit of its main
	d     *daemon
	shim  string
	revs  map[string]stats // the rows measured on the bench's own pack, or nil
	clone *transfers       // its clone, or nil
}

// measure measures the shape s, prints its table and returns it.
func (b *shapeBench) measure(s serverShape) (shapeResult, error) {
	r, c := b.r, b.c
	reuseRows := s.name == "revs" && b.revs != nil
	reuseClone := s.name == "revs" && b.clone != nil
	dir, packPath := "", r.packPath // the bench's own pack
	var err error
	if !reuseRows || !reuseClone && c.rows["clone"] {
		if dir, packPath, err = ensureUpstream(b.d, b.src, r.work, s, b.sel); err != nil {
			return shapeResult{}, err
		}
	}
	info, err := describePack(packPath)
	if err != nil {
		return shapeResult{}, err
	}
	// The floor is what a kept pack and a clone are compared with: some
	// seconds to measure, and only where one of them is.
	var fl cpuFloor
	if c.rows["keep"] || c.rows["clone"] {
		if fl, err = measureFloor(packPath); err != nil {
			return shapeResult{}, err
		}
	}
	res := shapeResult{shape: s, info: info, st: map[string]stats{}}
	vs := pick(shapeVariants(), c.rows)
	if reuseRows {
		for _, v := range vs {
			res.st[v.name] = b.revs[v.name]
		}
	} else {
		saved := r.packPath
		r.packPath = packPath
		res.st, err = measureRows(r, vs, c.rounds, info.entries)
		r.packPath = saved
		if err != nil {
			return shapeResult{}, err
		}
	}
	tr := transfers{}
	switch {
	case reuseClone:
		tr = *b.clone
	case c.rows["clone"]:
		if tr, err = (&transfer{r: r, shim: b.shim, wantMain: b.want}).rounds(b.d.url(filepath.Base(dir)), c.rounds, "clone"); err != nil {
			return shapeResult{}, err
		}
	}
	if len(tr.ours) > 0 {
		res.st[oursClone], res.st[gitClone] = summarize(tr.ours), summarize(tr.git)
		res.rss = medianKB(tr.helperKB)
		vs = append(vs, variant{name: oursClone, base: gitClone}, variant{name: gitClone})
	}
	fmt.Printf("\n### shape %s: %s\n\npack: %s\n\n", s.name, s.recipe, info)
	table(os.Stdout, vs, res.st)
	if fl.total() > 0 {
		fmt.Printf("\n%s\n", floorLine(fl, res.st))
	}
	return res, nil
}

// medianKB is the median of sizes in KiB, in MiB.
func medianKB(kb []int64) float64 {
	var xs []float64
	for _, k := range kb {
		xs = append(xs, float64(k)/1024)
	}
	if len(xs) == 0 {
		return 0
	}
	return median(xs)
}

// shapeSummary prints one line per shape, and checks issue 18's targets
// on each, those of the rows measured (-rows).
func shapeSummary(w io.Writer, results []shapeResult, t *targets) {
	fmt.Fprintf(w, "\n| shape | entries | deltas | bases > %d MiB back | median base distance B | mean chain | keep / index-pack | keep inflates/object | keep patches/object | clone / git clone | helper RSS MiB | clone inflates/object | none / git none | none inflates/object | batch / floor |\n", farBase>>20)
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, res := range results {
		st, in, name := res.st, res.info, res.shape.name
		cell := func(a, b string) string {
			if r, ok := ratio(st, a, b); ok {
				return fmt.Sprintf("%.2f×", r)
			}
			return "–"
		}
		num := func(row string, x float64, format string) string {
			if _, ok := st[row]; ok {
				return fmt.Sprintf(format, x)
			}
			return "–"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			name, in.entries, in.deltas(), in.far, in.medianDist, in.meanDepth,
			cell("ours keep", "git index-pack"), num("ours keep", st["ours keep"].inflated, "%.3f"), num("ours keep", st["ours keep"].patched, "%.3f"),
			cell(oursClone, gitClone), num(oursClone, res.rss, "%.0f"), num(oursClone, st[oursClone].inflated, "%.3f"),
			cell("ours none", "git none"), num("ours none", st["ours none"].inflated, "%.3f"), cell("ours batch", "ours none + sync -f"))
		if r, ok := ratio(st, "ours keep", "git index-pack"); ok {
			t.check(name+": ours keep ≤ 0.8× git index-pack --stdin", r <= 0.8, fmt.Sprintf("%.2f×", r))
			deltas := float64(in.deltas()) / float64(in.entries)
			p := st["ours keep"].patched
			t.check(name+": keep applies each delta once (patches/object within 2% of deltas/object)", p <= 1.02*deltas,
				fmt.Sprintf("%.3f against %.3f", p, deltas))
			t.note("%s: keep inflates %.3f entries per object, %.1f MiB read back", name, st["ours keep"].inflated, st["ours keep"].reread)
		}
		if r, ok := ratio(st, oursClone, gitClone); ok {
			t.check(name+": ours clone --mirror ≤ 1.0× git clone --mirror", r <= 1.0, fmt.Sprintf("%.2f×", r))
			t.check(name+": helper peak RSS ≤ 128 MiB (clone)", res.rss <= 128, fmt.Sprintf("%.0f MiB", res.rss))
		}
		if r, ok := ratio(st, "ours none", "git none"); ok {
			t.check(name+": ours none ≤ 0.5× git none", r <= 0.5, fmt.Sprintf("%.2f×", r))
		}
		if r, ok := ratio(st, "ours batch", "ours none + sync -f"); ok {
			t.check(name+": ours batch ≤ 1.25× the floor (ours none + sync -f)", r <= 1.25, fmt.Sprintf("%.2f×", r))
		}
	}
}
