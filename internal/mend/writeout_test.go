package mend

import "testing"

// starts counts the writeouts started.
type starts struct{ n int }

func (s *starts) StartWriteout() error { s.n++; return nil }

// counted counts the bytes written to it.
type counted struct{ n int }

func (c *counted) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// TestWritingOut: every byte reaches the writer, and a writeout starts
// each time writeoutEvery bytes have come since the last.
func TestWritingOut(t *testing.T) {
	for _, size := range []int{1 << 20, 3<<20 + 17, writeoutEvery, 20 << 20} {
		w, s := &counted{}, &starts{}
		o := &writingOut{w: w, s: s}
		chunk := make([]byte, size)
		total := 0
		for total < 5*writeoutEvery+100 {
			n, err := o.Write(chunk)
			if err != nil || n != size {
				t.Fatalf("wrote %d, %v", n, err)
			}
			total += n
		}
		per := (writeoutEvery + size - 1) / size * size // the bytes between two starts
		if w.n != total || s.n != total/per {
			t.Errorf("writes of %d: %d of %d bytes reached the writer, %d writeouts started, want %d", size, w.n, total, s.n, total/per)
		}
	}
}
