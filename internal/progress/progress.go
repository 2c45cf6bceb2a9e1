// Package progress draws git's progress lines on a terminal:
//
//	Unpacking objects:  45% (450/1000), 1.20 MiB | 3.00 MiB/s
//	Unpacking objects: 100% (1000/1000), 2.67 MiB | 3.10 MiB/s, done.
//
// The line is redrawn when the percentage changes or a second has passed,
// as git's progress.c does. (progressbar/v3 cannot draw this line: it has one
// counter and a fixed layout, so objects and bytes cannot both be shown.)
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Meter is one progress line. A nil *Meter is valid and draws nothing.
type Meter struct {
	mu      sync.Mutex
	w       io.Writer
	title   string
	total   int
	bytes   bool // show throughput
	start   time.Time
	last    time.Time
	percent int
	width   int // length of the last line drawn
	n       int
	nbytes  int64
	now     func() time.Time
}

// New starts a meter on w. total is the number of items (0 when unknown);
// withBytes adds git's ", <bytes> | <rate>/s" throughput.
func New(w io.Writer, title string, total int, withBytes bool) *Meter {
	m := &Meter{w: w, title: title, total: total, bytes: withBytes, percent: -1, now: time.Now}
	m.start = m.now()
	return m
}

// Update sets the number of items done and bytes processed.
func (m *Meter) Update(n int, nbytes int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.n, m.nbytes = n, nbytes
	now := m.now()
	p := m.pct()
	if p == m.percent && now.Sub(m.last) < time.Second {
		return
	}
	m.percent, m.last = p, now
	m.draw("\r")
}

// Done draws the final line with ", done." and a newline.
func (m *Meter) Done() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.percent = m.pct()
	m.draw(", done.\n")
}

func (m *Meter) pct() int {
	if m.total <= 0 {
		return 0
	}
	return int(int64(m.n) * 100 / int64(m.total))
}

func (m *Meter) draw(eol string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", m.title)
	if m.total > 0 {
		fmt.Fprintf(&b, "%3d%% (%d/%d)", m.percent, m.n, m.total)
	} else {
		fmt.Fprintf(&b, "%d", m.n)
	}
	if m.bytes {
		secs := m.now().Sub(m.start).Seconds()
		rate := 0.0
		if secs > 0 {
			rate = float64(m.nbytes) / secs
		}
		fmt.Fprintf(&b, ", %s | %s/s", Bytes(m.nbytes), Bytes(int64(rate)))
	}
	line := b.String()
	pad := ""
	if m.width > len(line) {
		pad = strings.Repeat(" ", m.width-len(line))
	}
	m.width = len(line)
	io.WriteString(m.w, line+pad+eol)
}

// Bytes renders a byte count as git's strbuf_humanise_bytes does.
func Bytes(n int64) string {
	switch {
	case n > 1<<30:
		return fmt.Sprintf("%d.%02d GiB", n>>30, (n&(1<<30-1))/10737419)
	case n > 1<<20:
		x := n + 5243
		return fmt.Sprintf("%d.%02d MiB", x>>20, ((x&(1<<20-1))*100)>>20)
	case n > 1<<10:
		x := n + 5
		return fmt.Sprintf("%d.%02d KiB", x>>10, ((x&(1<<10-1))*100)>>10)
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}
