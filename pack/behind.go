package pack

import (
	"hash"
	"io"
)

// behindSize is the size of each buffer a behind writer hands to its
// goroutine.
const behindSize = 1 << 20

// behind writes to w from a goroutine of its own, a buffer at a time,
// while its caller fills the next: the write of a large pack (the
// kernel's copy into the page cache), and the hash of what is written
// where it has one, run beside the reading of what comes after it. The
// first error of w comes from close.
type behind struct {
	w     io.Writer
	h     hash.Hash // nil: nothing hashed
	full  chan []byte
	free  chan []byte
	done  chan error
	drawn chan []byte // sum's answer
	buf   []byte
}

// newBehind starts a behind writer to w that hashes what it writes in h,
// where h is not nil; close must be called.
func newBehind(w io.Writer, h hash.Hash) *behind {
	b := &behind{w: w, h: h, full: make(chan []byte, 2), free: make(chan []byte, 3), done: make(chan error, 1), drawn: make(chan []byte)}
	for range 3 {
		b.free <- make([]byte, 0, behindSize)
	}
	b.buf = <-b.free
	go b.run()
	return b
}

// run hashes and writes each full buffer to w, and hands it back; a nil
// one asks for the sum of all before it.
func (b *behind) run() {
	var err error
	for p := range b.full {
		if p == nil {
			b.drawn <- b.h.Sum(nil)
			continue
		}
		if b.h != nil {
			b.h.Write(p)
		}
		if err == nil {
			_, err = b.w.Write(p)
		}
		b.free <- p[:0]
	}
	b.done <- err
}

// sum returns the hash of everything written so far (h's Sum), once the
// goroutine has hashed it; the writer must have been started with a hash.
func (b *behind) sum() []byte {
	if len(b.buf) > 0 {
		b.full <- b.buf
		b.buf = <-b.free
	}
	b.full <- nil
	return <-b.drawn
}

// Write copies p into the buffers, handing each on as it fills.
func (b *behind) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := copy(b.buf[len(b.buf):cap(b.buf)], p)
		b.buf, p = b.buf[:len(b.buf)+k], p[k:]
		if len(b.buf) == cap(b.buf) {
			b.full <- b.buf
			b.buf = <-b.free
		}
	}
	return n, nil
}

// close writes what is left, waits for every write and ends the
// goroutine; it returns the first error of w.
func (b *behind) close() error {
	if len(b.buf) > 0 {
		b.full <- b.buf
	}
	close(b.full)
	return <-b.done
}
