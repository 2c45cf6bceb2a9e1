package unpack_test

import (
	"io/fs"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/crashtest"
)

// The mutants below break the batch scheme from outside, as wrappers of the
// filesystem the policy writes through, so that production code carries no
// switch for them. Each must be caught by the crash checker.

// noWriteout drops every writeout-only sync.
type noWriteout struct{ batch.FS }

type noWriteoutFile struct{ batch.File }

func (f noWriteoutFile) Writeout() error { return nil }

func (m noWriteout) Create(name string, perm fs.FileMode) (batch.File, error) {
	f, err := m.FS.Create(name, perm)
	if err != nil {
		return nil, err
	}
	return noWriteoutFile{f}, nil
}

// noFlush drops the full flush by name at the end of the batch.
type noFlush struct{ batch.FS }

func (noFlush) Flush(string) error { return nil }

// flushFirst holds each rename back until the next one, and when the
// flush comes, flushes the file before its pending rename — git's own
// batch order: the flush precedes the last rename.
type flushFirst struct {
	batch.FS
	mu       sync.Mutex
	from, to string // the rename held back
}

func (m *flushFirst) Rename(from, to string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.release(); err != nil {
		return err
	}
	m.from, m.to = from, to
	return nil
}

// release runs the rename held back; m.mu is held.
func (m *flushFirst) release() error {
	if m.to == "" {
		return nil
	}
	from, to := m.from, m.to
	m.from, m.to = "", ""
	return m.FS.Rename(from, to)
}

func (m *flushFirst) Flush(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if name == m.to {
		name = m.from
	}
	if err := m.FS.Flush(name); err != nil {
		return err
	}
	return m.release()
}

// ReadFile finds a file under the name it is about to get.
func (m *flushFirst) ReadFile(name string) ([]byte, error) {
	m.mu.Lock()
	if name == m.to {
		name = m.from
	}
	m.mu.Unlock()
	return m.FS.ReadFile(name)
}

// wrongLast flushes, instead of the object renamed last, the object whose
// temporary file was created last — what a Last flag given at submission
// time would pick — or, when that is the same object, the one renamed
// before it.
type wrongLast struct {
	batch.FS
	mu      sync.Mutex
	created string            // the temporary file created last
	final   map[string]string // temporary name → final name
	renamed []string          // final names in rename order
}

func (m *wrongLast) Create(name string, perm fs.FileMode) (batch.File, error) {
	f, err := m.FS.Create(name, perm)
	if err == nil {
		m.mu.Lock()
		m.created = name
		m.mu.Unlock()
	}
	return f, err
}

func (m *wrongLast) Rename(from, to string) error {
	err := m.FS.Rename(from, to)
	if err == nil {
		m.mu.Lock()
		m.final[from] = to
		m.renamed = append(m.renamed, to)
		m.mu.Unlock()
	}
	return err
}

func (m *wrongLast) Flush(name string) error {
	m.mu.Lock()
	other := m.final[m.created]
	if other == name || other == "" {
		other = m.renamed[len(m.renamed)-2]
	}
	m.mu.Unlock()
	return m.FS.Flush(other)
}

// TestMutantsAreCaught runs each mutant of the batch scheme on a parallel
// unpack of 1,000 objects and requires the checker to find the invariant
// it breaks, while the unmutated run passes.
func TestMutantsAreCaught(t *testing.T) {
	n := 1000
	if raceEnabled {
		n = 200
	}
	pack := deltaPack(n, "mutant")
	tests := []struct {
		name string
		wrap func(batch.FS) batch.FS
		want string // invariants that must break, as crashtest.Report.Broken names them
	}{
		{"none", nil, ""},
		{"no writeout before rename", func(f batch.FS) batch.FS { return noWriteout{f} }, "I-a, I-b"},
		{"no final flush", func(f batch.FS) batch.FS { return noFlush{f} }, "I-a"},
		{"flush before the last rename", func(f batch.FS) batch.FS { return &flushFirst{FS: f} }, "I-a"},
		{"flush of the wrong object", func(f batch.FS) batch.FS { return &wrongLast{FS: f, final: map[string]string{}} }, "I-a"},
	}
	for _, tt := range tests {
		r := unpackMem(t, pack, runConfig{method: batch.Batch, workers: 4, wrap: tt.wrap})
		if r.err != nil {
			t.Fatalf("%s: %v", tt.name, r.err)
		}
		rep := r.check(t, crashtest.MJ, r.reported)
		if got := rep.Broken(); got != tt.want {
			t.Errorf("mutant %q: broke %q, want %q\n%v", tt.name, got, tt.want, rep.Err())
		} else if got != "" {
			t.Logf("mutant %q caught: %v", tt.name, rep.Violations[0])
		}
	}
}
