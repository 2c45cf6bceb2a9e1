package mend

import (
	"io"

	"github.com/git-durable/git-durable/batch"
)

// writeoutEvery is how many bytes a pack written again takes between the
// starts of its writeout (writingOut).
const writeoutEvery = 8 << 20

// writingOut writes to w and starts the file's writeout (s) each
// writeoutEvery bytes: the device writes a large pack while the rest is
// made, and the writeout-only sync before its rename waits for little
// (a 41 MiB pack written again for one flipped byte: the mend's median
// 0.154 s → 0.140 s). A start is advice: its error is left for the sync.
type writingOut struct {
	w io.Writer
	s batch.Starter
	n int64
}

// Write writes p to w, and starts a writeout once writeoutEvery bytes
// have come since the last.
func (o *writingOut) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if o.n += int64(n); o.n >= writeoutEvery {
		o.n = 0
		o.s.StartWriteout()
	}
	return n, err
}

// writeOut is f written with its writeout started as it goes (writingOut),
// where f can start one.
func writeOut(f batch.File) io.Writer {
	if s, ok := f.(batch.Starter); ok {
		return &writingOut{w: f, s: s}
	}
	return f
}
