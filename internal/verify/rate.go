package verify

import (
	"context"
	"io"
	"time"
)

// limited reads from r at most rate bytes a second on average (none where
// rate is 0), and stops when ctx ends.
type limited struct {
	ctx   context.Context
	r     io.Reader
	rate  int64
	start time.Time
	read  int64
}

func newLimited(ctx context.Context, r io.Reader, rate int64) *limited {
	return &limited{ctx: ctx, r: r, rate: rate, start: time.Now()}
}

func (l *limited) Read(p []byte) (int, error) {
	if err := l.ctx.Err(); err != nil {
		return 0, err
	}
	if l.rate > 0 {
		// Not ahead of the rate: wait until what was read is due.
		due := l.start.Add(time.Duration(float64(l.read) / float64(l.rate) * float64(time.Second)))
		if wait := time.Until(due); wait > 0 {
			select {
			case <-time.After(wait):
			case <-l.ctx.Done():
				return 0, l.ctx.Err()
			}
		}
		p = p[:min(int64(len(p)), max(l.rate/10, 4096))]
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
}
