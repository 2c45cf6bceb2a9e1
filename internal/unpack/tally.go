package unpack

import "sync"

// tally is what a run has come to so far: the objects written and those
// found present, the first fatal error, and whether Recover skipped
// anything. The reader and the workers add to it under its own lock,
// which is never held while another is taken.
type tally struct {
	mu       sync.Mutex
	written  int
	existing int
	err      error // the first fatal error
	skipped  bool  // Recover skipped something
}

// count counts an object written, or one found present.
func (t *tally) count(wrote bool) {
	t.mu.Lock()
	if wrote {
		t.written++
	} else {
		t.existing++
	}
	t.mu.Unlock()
}

// counts returns the objects written and those found present.
func (t *tally) counts() (written, existing int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.written, t.existing
}

// fail records err unless an error came first.
func (t *tally) fail(err error) {
	t.mu.Lock()
	if t.err == nil {
		t.err = err
	}
	t.mu.Unlock()
}

// first returns the first fatal error, or nil.
func (t *tally) first() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// skip records that Recover skipped an error.
func (t *tally) skip() {
	t.mu.Lock()
	t.skipped = true
	t.mu.Unlock()
}

// recovered says whether Recover skipped anything.
func (t *tally) recovered() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.skipped
}
