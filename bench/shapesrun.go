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
// helper beside plain git. revs, when given, holds the rows already
// measured on the bench's own pack (the revs shape), clone its clone.
func measureShapes(r *runner, c realConfig, src string, sel selection, revs map[string]stats, clone *transfers, t *targets) error {
	want := ""
	for _, ref := range sel.refs {
		if id, ok := strings.CutPrefix(ref, "refs/heads/main "); ok {
			want = id
		}
	}
	base := filepath.Join(r.work, "shapes")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return err
	}
	d, err := startDaemon(base)
	if err != nil {
		return err
	}
	defer d.stop()
	shim, err := helperShim(base, c.helper)
	if err != nil {
		return err
	}
	chosen := map[string]bool{}
	for _, n := range strings.Split(c.shapes, ",") {
		chosen[strings.TrimSpace(n)] = true
	}
	var results []shapeResult
	for _, s := range serverShapes() {
		if !chosen[s.name] {
			continue
		}
		reuse := s.name == "revs" && revs != nil && clone != nil
		dir, packPath := "", r.packPath // the bench's own pack
		if !reuse {
			if dir, packPath, err = ensureUpstream(d, src, r.work, s, sel); err != nil {
				return err
			}
		}
		info, err := describePack(packPath)
		if err != nil {
			return err
		}
		res := shapeResult{shape: s, info: info, st: map[string]stats{}}
		vs := shapeVariants()
		if reuse {
			for _, v := range vs {
				res.st[v.name] = revs[v.name]
			}
		} else {
			saved := r.packPath
			r.packPath = packPath
			samples, err := rotate(r, vs, c.rounds, info.entries, true)
			r.packPath = saved
			if err != nil {
				return err
			}
			for _, v := range vs {
				res.st[v.name] = summarize(samples[v.name])
			}
		}
		tr := transfers{}
		if reuse {
			tr = *clone
		} else if tr, err = (&transfer{r: r, shim: shim, wantMain: want}).rounds(d.url(filepath.Base(dir)), c.rounds, "clone"); err != nil {
			return err
		}
		res.st[oursClone], res.st[gitClone] = summarize(tr.ours), summarize(tr.git)
		res.rss = medianKB(tr.helperKB)
		fmt.Printf("\n### shape %s: %s\n\npack: %s\n\n", s.name, s.recipe, info)
		table(os.Stdout, append(vs, variant{name: oursClone, base: gitClone}, variant{name: gitClone}), res.st)
		results = append(results, res)
	}
	if len(results) > 0 {
		shapeSummary(os.Stdout, results, t)
	}
	return nil
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
// on each.
func shapeSummary(w io.Writer, results []shapeResult, t *targets) {
	fmt.Fprintf(w, "\n| shape | entries | deltas | bases > %d MiB back | median base distance B | mean chain | keep / index-pack | keep inflates/object | keep patches/object | clone / git clone | helper RSS MiB | clone inflates/object | none / git none | batch / floor |\n", farBase>>20)
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, res := range results {
		st, in := res.st, res.info
		keep := st["ours keep"].wall / st["git index-pack"].wall
		clone := st[oursClone].wall / st[gitClone].wall
		none := st["ours none"].wall / st["git none"].wall
		batch := st["ours batch"].wall / st["ours none + sync -f"].wall
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %.1f | %.2f× | %.3f | %.3f | %.2f× | %.0f | %.3f | %.2f× | %.2f× |\n",
			res.shape.name, in.entries, in.deltas(), in.far, in.medianDist, in.meanDepth,
			keep, st["ours keep"].inflated, st["ours keep"].patched, clone, res.rss, st[oursClone].inflated, none, batch)
		name := res.shape.name
		t.check(name+": ours keep ≤ 0.8× git index-pack --stdin", keep <= 0.8, fmt.Sprintf("%.2f×", keep))
		t.check(name+": ours clone --mirror ≤ 1.0× git clone --mirror", clone <= 1.0, fmt.Sprintf("%.2f×", clone))
		t.check(name+": helper peak RSS ≤ 128 MiB (clone)", res.rss <= 128, fmt.Sprintf("%.0f MiB", res.rss))
		t.check(name+": ours none ≤ 0.5× git none", none <= 0.5, fmt.Sprintf("%.2f×", none))
		t.check(name+": ours batch ≤ 1.25× the floor (ours none + sync -f)", batch <= 1.25, fmt.Sprintf("%.2f×", batch))
		deltas := float64(in.deltas()) / float64(in.entries)
		p := st["ours keep"].patched
		t.check(name+": keep applies each delta once (patches/object within 2% of deltas/object)", p <= 1.02*deltas,
			fmt.Sprintf("%.3f against %.3f", p, deltas))
		t.note("%s: keep inflates %.3f entries per object, %.1f MiB read back", name, st["ours keep"].inflated, st["ours keep"].reread)
	}
}
