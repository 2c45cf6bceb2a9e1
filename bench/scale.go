package main

import (
	"fmt"
	"io"
	"os"
)

// point is one pack of the scaling curve.
type point struct {
	sel     selection
	pack    string
	objects int
	bytes   int64 // the objects' contents, summed (known after the first run)
	none    []sample
	batch   []sample
}

// scaling explodes the pack of every point with ours, none and batch,
// rounds times, the order of the points rotated every round.
func scaling(r *runner, src string, sels []selection, rounds int) ([]*point, error) {
	var pts []*point
	for _, s := range sels {
		if len(s.revs) == 0 {
			fmt.Fprintf(os.Stderr, "scaling: the history has fewer than %s: left out\n", s.label)
			continue
		}
		path, err := packFor(src, r.work, s)
		if err != nil {
			return nil, err
		}
		sh, err := describePack(path)
		if err != nil {
			return nil, err
		}
		pts = append(pts, &point{sel: s, pack: path, objects: sh.entries})
	}
	saved := r.packPath
	defer func() { r.packPath = saved }()
	none := variant{name: "ours none", argv: []string{"ours", "-q"}, config: cfgNone}
	batch := variant{name: "ours batch", argv: []string{"ours", "-q"}, config: cfgBatch}
	bar := newBar(rounds * len(pts) * 2)
	for round := 0; round < rounds; round++ {
		for i := range pts {
			p := pts[(i+round)%len(pts)]
			r.packPath = p.pack
			order := []variant{none, batch}
			if round%2 == 1 {
				order = []variant{batch, none}
			}
			for _, v := range order {
				s, err := r.measure(v)
				if err == nil && p.bytes == 0 {
					p.bytes, _, err = objectSizes(r.last)
				}
				os.RemoveAll(r.last)
				if err != nil {
					return nil, err
				}
				if s.objectsSeen != p.objects {
					return nil, fmt.Errorf("%s on %s left %d objects, want %d", v.name, p.sel.label, s.objectsSeen, p.objects)
				}
				if v.name == none.name {
					p.none = append(p.none, s)
				} else {
					p.batch = append(p.batch, s)
				}
				bar.Add(1)
			}
		}
	}
	bar.Finish()
	return pts, nil
}

// perObject is a median wall time per object in microseconds.
func perObject(ss []sample, n int) float64 {
	return summarize(ss).wall / float64(n) * 1e6
}

// perMiB is a median wall time per MiB of object contents in milliseconds.
func perMiB(ss []sample, bytes int64) float64 {
	return summarize(ss).wall / (float64(bytes) / (1 << 20)) * 1e3
}

// scalingTable prints the curve and returns the ratios of the time per
// object at the largest point to that at the smallest, none and batch, and
// the same ratios per MiB of object contents: a real history's objects
// grow as it goes on, so time per object grows even where time per byte
// does not.
func scalingTable(w io.Writer, pts []*point) (none, batch, noneMiB, batchMiB float64) {
	fmt.Fprintf(w, "\n| pack (ours) | objects | contents MiB | KiB/object | none s | none µs/object | none ms/MiB | batch s | batch µs/object | batch ms/MiB | batch writeout-only | batch hardware-flush |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	lo, hi := pts[0], pts[0]
	for _, p := range pts {
		n, b := summarize(p.none), summarize(p.batch)
		fmt.Fprintf(w, "| %s | %d | %.0f | %.1f | %.2f | %.1f | %.2f | %.2f | %.1f | %.2f | %.0f | %.0f |\n", p.sel.label, p.objects,
			float64(p.bytes)/(1<<20), float64(p.bytes)/float64(p.objects)/1024,
			n.wall, perObject(p.none, p.objects), perMiB(p.none, p.bytes),
			b.wall, perObject(p.batch, p.objects), perMiB(p.batch, p.bytes), b.wo, b.hf)
		if p.objects < lo.objects {
			lo = p
		}
		if p.objects > hi.objects {
			hi = p
		}
	}
	none = perObject(hi.none, hi.objects) / perObject(lo.none, lo.objects)
	batch = perObject(hi.batch, hi.objects) / perObject(lo.batch, lo.objects)
	noneMiB = perMiB(hi.none, hi.bytes) / perMiB(lo.none, lo.bytes)
	batchMiB = perMiB(hi.batch, hi.bytes) / perMiB(lo.batch, lo.bytes)
	return none, batch, noneMiB, batchMiB
}
