package mend

import (
	"fmt"
	"sync"
	"time"
)

// watchdog cancels a mend's sessions with its upstream once nothing came
// from it for idle: an upstream that accepts and never answers would
// otherwise hold the mend, and with it a run of -j 1, until --timeout.
type watchdog struct {
	idle   time.Duration
	cancel func()

	mu    sync.Mutex
	last  time.Time
	fired bool
	done  chan struct{}
}

// watch starts a watchdog that calls cancel after idle without a call of
// alive; a zero idle never fires.
func watch(idle time.Duration, cancel func()) *watchdog {
	w := &watchdog{idle: idle, cancel: cancel, last: time.Now(), done: make(chan struct{})}
	if idle > 0 {
		go w.run()
	}
	return w
}

// run checks, a tenth of idle apart, how long the upstream has been still.
func (w *watchdog) run() {
	tick := time.NewTicker(max(w.idle/10, 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-tick.C:
			w.mu.Lock()
			still := time.Since(w.last) > w.idle
			if still {
				w.fired = true
			}
			w.mu.Unlock()
			if still {
				w.cancel()
				return
			}
		}
	}
}

// alive says that the upstream answered, or that a request begins.
func (w *watchdog) alive() {
	w.mu.Lock()
	w.last = time.Now()
	w.mu.Unlock()
}

// stop ends the watchdog.
func (w *watchdog) stop() {
	select {
	case <-w.done:
	default:
		close(w.done)
	}
}

// explain returns why the sessions ended where the watchdog ended them,
// err otherwise.
func (w *watchdog) explain(err error, url string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired {
		return fmt.Errorf("'%s' sent nothing for %s: gave up", url, w.idle)
	}
	return err
}

// liveReader tells the watchdog of every read that brought bytes.
type liveReader struct {
	r     interface{ Read([]byte) (int, error) }
	alive func()
}

func (l liveReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.alive()
	}
	return n, err
}
