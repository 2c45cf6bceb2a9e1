package http

import (
	"context"
	"fmt"
	"io"
	nethttp "net/http"
	"sync"
	"time"
)

// lowSpeed is http.lowSpeedLimit and http.lowSpeedTime, curl's
// CURLOPT_LOW_SPEED_LIMIT and _TIME: a request that moves less than limit
// bytes a second over period fails with curl's error 28, as its message
// says ("Less than N bytes/sec transferred the last M seconds"). curl
// judges a speed averaged over up to 5 s, so that a burst delays it; the
// helper judges the last period alone, and fails a stall that follows a
// burst a period after it. Every request is watched from the moment it is
// sent — the connection, the upload, the wait for the headers — to the
// end of its body. The clock runs only while the helper waits on the
// network: time spent between two reads of a body writing objects durably
// is not the upstream's slowness, and an idle connection between requests
// is not watched at all.
type lowSpeed struct {
	next   nethttp.RoundTripper
	cut    *Log
	limit  int64
	period time.Duration
	tick   time.Duration // how often the speed is measured
}

// RoundTrip sends req, failing it (and later reads of its body) once it
// has been too slow for too long.
func (l *lowSpeed) RoundTrip(req *nethttp.Request) (*nethttp.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	m := &meter{limit: l.limit, period: l.period, samples: []sample{{}}, done: make(chan struct{})}
	fail := &transferError{code: 28, initial: initialRequest(req),
		msg: fmt.Sprintf("Operation too slow. Less than %d bytes/sec transferred the last %d seconds", l.limit, l.period/time.Second)}
	go m.watch(l.tick, func() {
		l.cut.Add(fail)
		cancel()
	})
	out := req.WithContext(ctx)
	if req.Body != nil && req.Body != nethttp.NoBody {
		out.Body = &meteredBody{rc: req.Body, m: m, fail: fail, upload: true}
	}
	m.enter(time.Now())
	resp, err := l.next.RoundTrip(out)
	m.exit(time.Now(), 0)
	if err != nil {
		m.stop()
		cancel()
		if m.tooSlow() {
			return nil, fail
		}
		return nil, err
	}
	resp.Body = &meteredBody{rc: resp.Body, m: m, fail: fail, cancel: cancel}
	return resp, nil
}

// meteredBody counts what goes through a request's or a response's body,
// and turns the failure of a read the meter cut short into curl's error.
type meteredBody struct {
	rc     io.ReadCloser
	m      *meter
	fail   error
	upload bool // the request's body, read while RoundTrip waits anyway
	cancel context.CancelFunc
}

func (b *meteredBody) Read(p []byte) (int, error) {
	if !b.upload {
		b.m.enter(time.Now())
	}
	n, err := b.rc.Read(p)
	if b.upload {
		b.m.add(n)
	} else {
		b.m.exit(time.Now(), n)
	}
	switch {
	case err == io.EOF && !b.upload:
		b.m.stop() // all of it came, however close the watch was to a cut
	case err != nil && err != io.EOF && b.m.tooSlow():
		err = b.fail
	}
	return n, err
}

func (b *meteredBody) Close() error {
	if !b.upload {
		b.m.stop()
		b.cancel()
	}
	return b.rc.Close()
}

// meter measures one request's speed on a clock that runs while some call
// waits on the network.
type meter struct {
	limit  int64
	period time.Duration

	mu      sync.Mutex
	busy    int           // calls waiting on the network
	since   time.Time     // when busy last left 0
	clock   time.Duration // time spent busy before since
	bytes   int64
	samples []sample // the last period of the clock, and one before
	failed  bool

	once sync.Once
	done chan struct{}
}

// sample is the byte count at a time on the meter's clock.
type sample struct {
	at    time.Duration
	bytes int64
}

func (m *meter) enter(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.busy == 0 {
		m.since = now
	}
	m.busy++
}

func (m *meter) exit(now time.Time, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.busy--
	if m.busy == 0 {
		m.clock += now.Sub(m.since)
	}
	m.bytes += int64(n)
}

func (m *meter) add(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bytes += int64(n)
}

func (m *meter) tooSlow() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.failed
}

// stop ends the watch: the request is over.
func (m *meter) stop() { m.once.Do(func() { close(m.done) }) }

// watch measures the speed every tick until the request ends, and calls
// cut (which ends the request's connection) when it has been too slow.
func (m *meter) watch(tick time.Duration, cut func()) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-m.done:
			return
		case now := <-t.C:
			if m.check(now) {
				cut()
				return
			}
		}
	}
}

// check takes a sample at now and reports whether the request has now
// moved less than the limit a second over the last period on the clock.
func (m *meter) check(now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	clock := m.clock
	if m.busy > 0 {
		clock += now.Sub(m.since)
	}
	if clock == m.samples[len(m.samples)-1].at {
		return false // nothing waited on the network since the last look
	}
	m.samples = append(m.samples, sample{clock, m.bytes})
	for len(m.samples) > 1 && m.samples[1].at <= clock-m.period {
		m.samples = m.samples[1:] // the base: the last sample a period ago
	}
	base := m.samples[0]
	if span := clock - base.at; span >= m.period && float64(m.bytes-base.bytes) < float64(m.limit)*span.Seconds() {
		m.failed = true
	}
	return m.failed
}
