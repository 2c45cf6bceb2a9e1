package cli

import (
	"context"
	"io"
)

// Interruptible returns a reader of r whose Read returns ctx's error as
// soon as ctx is done, also while a Read of r blocks (a pipe whose writer
// stalls): reading stdin, a command must see an interrupt, clean up and
// exit, not wait for input that may never come. r is read by a goroutine
// of its own, into a buffer of its own; once ctx is done, what it reads is
// dropped.
func Interruptible(ctx context.Context, r io.Reader) io.Reader {
	return &interruptible{ctx: ctx, r: r}
}

type interruptible struct {
	ctx  context.Context
	r    io.Reader
	want chan int // the size of the next read
	got  chan chunk
	err  error // sticky
}

type chunk struct {
	data []byte
	err  error
}

func (c *interruptible) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if c.want == nil {
		c.want, c.got = make(chan int), make(chan chunk)
		go c.pump()
	}
	select {
	case c.want <- len(p):
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
	select {
	case ch := <-c.got:
		n := copy(p, ch.data)
		if ch.err != nil {
			c.err = ch.err
		}
		return n, ch.err
	case <-c.ctx.Done():
		return 0, c.ctx.Err()
	}
}

// pump reads r for Read, one request at a time, until r fails or ctx is
// done.
func (c *interruptible) pump() {
	var buf []byte
	for {
		var n int
		select {
		case n = <-c.want:
		case <-c.ctx.Done():
			return
		}
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		m, err := c.r.Read(buf[:n])
		select {
		case c.got <- chunk{buf[:m], err}:
		case <-c.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}
