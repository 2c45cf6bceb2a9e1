package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// farBase is the base distance past which a resolver with a 16 MiB delta
// base cache is likely to have lost the base: the bytes of pack between a
// delta and its base inflate to more than that.
const farBase = 16 << 20

// shape is what decides the work of resolving a pack's deltas: how many
// there are, how far back their bases lie and how long their chains are.
// Which order the entries come in is the server's choice; git index-pack's
// cost does not depend on it, a resolver that caches recent bases does.
type shape struct {
	name       string
	bytes      int64
	entries    int
	ofs, ref   int
	far        int     // OFS deltas whose base is more than farBase back
	medianDist int64   // median base distance of the OFS deltas, in bytes
	meanDepth  float64 // mean chain length of the OFS deltas
	maxDepth   int
}

// describePack reads the pack at path and returns its shape. Distances and
// chains are those of the OFS deltas: a REF delta's base is known only by
// its id, which only resolving the pack would tell.
func describePack(path string) (shape, error) {
	f, err := os.Open(path)
	if err != nil {
		return shape{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return shape{}, err
	}
	s := shape{name: filepath.Base(path), bytes: fi.Size()}
	r := pack.NewReader(bufio.NewReaderSize(f, 1<<20), pack.ReaderOptions{})
	depth := map[int64]int{} // by offset; 0 for full objects
	var dists []int64
	sum := 0
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return shape{}, fmt.Errorf("%s: %v", path, err)
		}
		s.entries++
		switch e.Type {
		case object.OfsDelta:
			s.ofs++
			d := e.Offset - e.BaseOffset
			dists = append(dists, d)
			if d > farBase {
				s.far++
			}
			n := depth[e.BaseOffset] + 1
			depth[e.Offset] = n
			sum += n
			s.maxDepth = max(s.maxDepth, n)
		case object.RefDelta:
			s.ref++
			depth[e.Offset] = 1
		default:
			depth[e.Offset] = 0
		}
	}
	if len(dists) > 0 {
		slices.Sort(dists)
		s.medianDist = dists[len(dists)/2]
		s.meanDepth = float64(sum) / float64(len(dists))
	}
	return s, nil
}

// deltas returns the number of deltas of either kind.
func (s shape) deltas() int { return s.ofs + s.ref }

func (s shape) String() string {
	return fmt.Sprintf("%s: %.1f MiB, %d entries, %d OFS deltas, %d REF deltas; %d deltas whose base is > %d MiB back, median base distance %d B, mean chain %.1f, longest %d",
		s.name, float64(s.bytes)/(1<<20), s.entries, s.ofs, s.ref, s.far, farBase>>20, s.medianDist, s.meanDepth, s.maxDepth)
}
