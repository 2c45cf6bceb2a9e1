//go:build linux

package blocktest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// testLog is: w0 w1 F w3 w4 w5 F M(done) w8 w9.
func testLog() Log {
	w := func(off int64, b byte) Op {
		return Op{Kind: Write, Off: off, Len: 3, Data: []byte{b, b, b}}
	}
	return Log{w(0, 1), w(8192, 2), {Kind: Flush}, w(1, 3), w(4096, 4), w(4094, 5),
		{Kind: Flush}, {Kind: Mark, Name: "done"}, w(0, 6), {Kind: Write, Off: 8192, Len: 2}}
}

func TestLogQueries(t *testing.T) {
	l := testLog()
	if got := l.Flushes(); !slices.Equal(got, []int{2, 6}) {
		t.Errorf("Flushes = %v", got)
	}
	if d := l.MarkIndex("done"); d != 7 || l.LastFlushBefore(d) != 6 || l.LastFlushBefore(2) != -1 {
		t.Errorf("MarkIndex = %d, LastFlushBefore = %d, %d", d, l.LastFlushBefore(d), l.LastFlushBefore(2))
	}
	if w, b, f := l.Stats(); w != 7 || b != 20 || f != 2 {
		t.Errorf("Stats = %d %d %d", w, b, f)
	}
}

func TestPoints(t *testing.T) {
	l := testLog()
	pts := l.Points(PointOptions{Subsets: 3, Seed: 1})
	var bounds []int
	for _, p := range pts {
		if len(p.Extra) == 0 && !slices.Contains(bounds, p.Upto) {
			bounds = append(bounds, p.Upto)
		}
		for _, e := range p.Extra {
			if e < p.Upto || l[e].Kind != Write || l.LastFlushBefore(e) != p.Upto-1 {
				t.Errorf("%s: extra op %d is not a write of the epoch after the boundary", p.Label, e)
			}
		}
	}
	if !slices.Equal(bounds, []int{0, 3, 7, 10}) {
		t.Errorf("boundaries %v", bounds)
	}
	if len(pts) != 4+3*3 {
		t.Errorf("%d points, want 4 boundaries and 3 subsets of 3 epochs", len(pts))
	}
	if again := l.Points(PointOptions{Subsets: 3, Seed: 1}); !slices.EqualFunc(pts, again, func(a, b Point) bool {
		return a.Label == b.Label && slices.Equal(a.Extra, b.Extra)
	}) {
		t.Error("the same seed chose other points")
	}
	few := l.Points(PointOptions{MaxBoundaries: 1, KeepFrom: 6, Seed: 1})
	if len(few) != 3 || few[1].Upto != 7 || few[2].Upto != 10 {
		t.Errorf("sampled points %+v", few)
	}
}

func TestReplayImages(t *testing.T) {
	l := testLog()
	base := NewDisk(3 * BlockSize)
	base.WriteAt([]byte("base"), 100)
	name := filepath.Join(t.TempDir(), "img")
	pts := []Point{{Upto: 3}, {Upto: 3, Extra: []int{5}}, {Upto: 10}}
	var images [][]byte
	err := Replay(base, l, pts, name, func(p Point) error {
		b, err := os.ReadFile(name)
		images = append(images, b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The oracle: a flat byte slice with the ops copied in, in order.
	flat := func(ops ...int) []byte {
		b := make([]byte, 3*BlockSize)
		copy(b[100:], "base")
		for _, i := range ops {
			data := l[i].Data
			if data == nil {
				data = make([]byte, l[i].Len)
			}
			copy(b[l[i].Off:], data)
		}
		return b
	}
	for i, want := range [][]byte{flat(0, 1), flat(0, 1, 5), flat(0, 1, 3, 4, 5, 8, 9)} {
		if !bytes.Equal(images[i], want) {
			t.Errorf("image of %+v differs", pts[i])
		}
	}
	if err := Replay(base, l, []Point{{Upto: 3}, {Upto: 0}}, name, func(Point) error { return nil }); err == nil {
		t.Error("unsorted points were replayed")
	}
}
