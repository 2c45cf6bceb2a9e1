//go:build linux

package blocktest

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Point is one crash state of a recorded log: the device holds the effect
// of every op before Upto, which always ends at a flush boundary (or the
// end of the log), plus the writes Extra from the epoch that follows, in
// log order.
type Point struct {
	Upto  int
	Extra []int
	Label string
}

// Durable reports whether the crash state includes op i (and so every
// write before i when i is a flush).
func (p Point) Durable(i int) bool { return i < p.Upto }

// PointOptions chooses the crash states of a log.
type PointOptions struct {
	// Subsets is the number of random subsets of each epoch's writes
	// replayed on top of the boundary before it: the first one a random
	// prefix, the others each write with probability ½.
	Subsets int
	// Seed seeds the choice.
	Seed uint64
	// MaxBoundaries, if positive, caps the flush boundaries replayed
	// before KeepFrom: a seeded sample is kept. Boundaries at or after
	// op KeepFrom are all kept.
	MaxBoundaries int
	KeepFrom      int
}

// Points returns the crash states of the log: the state at the start, at
// every flush boundary and at the end, and Subsets random subsets of the
// writes of each epoch (the ops between two flushes) on top of the
// boundary before it; sorted by Upto.
func (l Log) Points(o PointOptions) []Point {
	bounds := []int{0}
	for _, f := range l.Flushes() {
		bounds = append(bounds, f+1)
	}
	if bounds[len(bounds)-1] != len(l) {
		bounds = append(bounds, len(l))
	}
	bounds = slices.Compact(bounds)
	rng := rand.New(rand.NewPCG(o.Seed, uint64(len(l))))
	bounds = sample(bounds, o, rng)
	var pts []Point
	for _, b := range bounds {
		pts = append(pts, Point{Upto: b, Label: fmt.Sprintf("boundary@%d", b)})
		writes := l.epochWrites(b)
		if len(writes) < 2 {
			continue // the boundaries around it are its only states
		}
		for s := 0; s < o.Subsets; s++ {
			var extra []int
			if s == 0 {
				extra = writes[:1+rng.IntN(len(writes)-1)]
			} else {
				for _, w := range writes {
					if rng.IntN(2) == 0 {
						extra = append(extra, w)
					}
				}
			}
			pts = append(pts, Point{Upto: b, Extra: extra,
				Label: fmt.Sprintf("boundary@%d+subset%d(%d/%d writes)", b, s, len(extra), len(writes))})
		}
	}
	return pts
}

// epochWrites returns the indices of the writes from op b up to the next
// flush.
func (l Log) epochWrites(b int) []int {
	var w []int
	for i := b; i < len(l) && l[i].Kind != Flush; i++ {
		if l[i].Kind == Write {
			w = append(w, i)
		}
	}
	return w
}

// sample keeps at most o.MaxBoundaries of the boundaries before
// o.KeepFrom, chosen at random, and all the others.
func sample(bounds []int, o PointOptions, rng *rand.Rand) []int {
	var early, late []int
	for _, b := range bounds {
		if b < o.KeepFrom {
			early = append(early, b)
		} else {
			late = append(late, b)
		}
	}
	if o.MaxBoundaries <= 0 || len(early) <= o.MaxBoundaries {
		return bounds
	}
	rng.Shuffle(len(early), func(i, j int) { early[i], early[j] = early[j], early[i] })
	kept := append(early[:o.MaxBoundaries:o.MaxBoundaries], late...)
	slices.Sort(kept)
	return kept
}
