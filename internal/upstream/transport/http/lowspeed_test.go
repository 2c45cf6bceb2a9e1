package http

import (
	"errors"
	"io"
	nethttp "net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestMeter drives the meter's clock by hand: a request is too slow once
// it has moved less than the limit a second over the last period, on a
// clock that stops while nothing waits on the network.
func TestMeter(t *testing.T) {
	const tick = 250 * time.Millisecond
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name string
		// step is called before the check at i ticks; it may move bytes
		// and enter or leave the network.
		step   func(m *meter, i int, now time.Time)
		failAt time.Duration // 0: never, within 20 s
	}{
		{"stall", func(m *meter, i int, now time.Time) {
			if i == 0 {
				m.enter(now)
			}
		}, 2 * time.Second},
		{"trickle", func(m *meter, i int, now time.Time) {
			if i == 0 {
				m.enter(now)
			} else if i%4 == 0 {
				m.add(1) // a byte a second
			}
		}, 2 * time.Second},
		{"fast", func(m *meter, i int, now time.Time) {
			if i == 0 {
				m.enter(now)
			}
			m.add(1000)
		}, 0},
		{"just-over", func(m *meter, i int, now time.Time) {
			if i == 0 {
				m.enter(now)
			} else if i%4 == 0 {
				m.add(1000) // the limit, in one piece a second
			}
		}, 0},
		{"fast-then-stall", func(m *meter, i int, now time.Time) {
			if i == 0 {
				m.enter(now)
			}
			if i < 20 {
				m.add(10000)
			}
		}, 6750 * time.Millisecond}, // a period after the burst, which ended at 4.75 s
		{"consumer-busy", func(m *meter, i int, now time.Time) {
			switch i {
			case 0:
				m.enter(now)
			case 2:
				m.exit(now, 0) // the helper writes objects for the rest of the run
			}
		}, 0},
		{"waits-between-writes", func(m *meter, i int, now time.Time) {
			// on the network one tick in four, receiving nothing: 4 s of
			// wall time per second of the clock
			if i%4 == 0 {
				m.enter(now)
			} else if i%4 == 1 {
				m.exit(now, 0)
			}
		}, 7250 * time.Millisecond}, // the clock reaches the period after 29 ticks
	} {
		m := &meter{limit: 1000, period: 2 * time.Second, samples: []sample{{}}}
		var failed time.Duration
		for i := 0; i*int(tick) <= int(20*time.Second); i++ {
			now := t0.Add(time.Duration(i) * tick)
			tc.step(m, i, now)
			if i > 0 && m.check(now) {
				failed = now.Sub(t0)
				break
			}
		}
		if failed != tc.failAt {
			t.Errorf("%s: failed at %v, want %v", tc.name, failed, tc.failAt)
		}
	}
}

// TestLowSpeedRoundTrip runs requests through the watch against a server
// that stalls, trickles, answers, and a client that reads slowly.
func TestLowSpeedRoundTrip(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/stall"):
			<-r.Context().Done()
		case strings.HasPrefix(r.URL.Path, "/trickle"):
			w.WriteHeader(nethttp.StatusOK)
			for {
				w.Write([]byte("x"))
				w.(nethttp.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		default:
			w.Write(make([]byte, 1<<20))
		}
	}))
	defer srv.Close()
	cut := &Log{}
	rt := &lowSpeed{next: nethttp.DefaultTransport, cut: cut, limit: 1000, period: time.Second, tick: 50 * time.Millisecond}
	get := func(path string, slowReader bool) (time.Duration, int, error) {
		start := time.Now()
		req, _ := nethttp.NewRequest(nethttp.MethodGet, srv.URL+path, nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			return time.Since(start), 0, err
		}
		defer resp.Body.Close()
		var n int
		buf := make([]byte, 32<<10)
		for {
			k, err := resp.Body.Read(buf)
			n += k
			if err == io.EOF {
				return time.Since(start), n, nil
			}
			if err != nil {
				return time.Since(start), n, err
			}
			if slowReader {
				time.Sleep(50 * time.Millisecond) // 1.6 s in all: the helper busy, not the server
			}
		}
	}
	for _, tc := range []struct {
		path    string
		slow    bool
		fails   bool
		initial bool
	}{
		{"/stall/info/refs", false, true, true},
		{"/trickle/git-upload-pack", false, true, false},
		{"/fast", false, false, false},
		{"/fast", true, false, false},
	} {
		took, n, err := get(tc.path, tc.slow)
		var te *transferError
		switch {
		case !tc.fails && err != nil:
			t.Errorf("%s: %v", tc.path, err)
		case !tc.fails && n != 1<<20:
			t.Errorf("%s: %d bytes", tc.path, n)
		case !tc.fails:
		case !errors.As(err, &te) || te.code != 28 || te.initial != tc.initial ||
			te.msg != "Operation too slow. Less than 1000 bytes/sec transferred the last 1 seconds":
			t.Errorf("%s: %v", tc.path, err)
		case took < 900*time.Millisecond || took > 3*time.Second:
			t.Errorf("%s: failed after %v, want about 1 s", tc.path, took)
		case !logged(cut):
			t.Errorf("%s: the failure is not logged", tc.path)
		}
	}
}

// logged reports whether a failure is in log.
func logged(log *Log) bool {
	_, ok := log.Describe("u")
	return ok
}
