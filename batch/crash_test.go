package batch_test

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// storeObjects writes n blobs through a transaction of p from eight
// goroutines and returns the final names of those that were published.
func storeObjects(t *testing.T, fsys batch.FS, p *batch.Policy, n int) []string {
	t.Helper()
	s := loose.Open(fsys, "/r/objects", loose.Options{})
	tx := p.Begin()
	var mu sync.Mutex
	var names []string
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				data := []byte(fmt.Sprintf("object %d\n", i))
				id, _ := object.SHA1.Sum(object.Blob, data)
				if err := s.Write(tx, id, object.Blob, data); err != nil {
					continue
				}
				d, rest := id.Shard()
				mu.Lock()
				names = append(names, filepath.Join("/r/objects", d, rest))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := tx.End(); err != nil {
		t.Fatal(err)
	}
	return names
}

func checkModel(t *testing.T, m *memfstest.FS, model crashtest.Model, expect []string) *crashtest.Report {
	t.Helper()
	rep, err := crashtest.Check(crashtest.FromMemfs(m.Events()), crashtest.Options{Model: model, Expect: expect})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// flakyWriteout makes Writeout fail with err from the k-th call on.
type flakyWriteout struct {
	batch.FS
	k     int64
	err   error
	calls *atomic.Int64
}

type flakyFile struct {
	batch.File
	m flakyWriteout
}

func (m flakyWriteout) Create(name string, perm fs.FileMode) (batch.File, error) {
	f, err := m.FS.Create(name, perm)
	if err != nil {
		return nil, err
	}
	return flakyFile{f, m}, nil
}

func (f flakyFile) Writeout() error {
	if f.m.calls.Add(1) > f.m.k {
		return f.m.err
	}
	return f.File.Writeout()
}

// TestBatchCrashModels checks the policy's transactions with the crash
// checker: batch is durable under M_J and not under M_P, with the flush of
// the last object or of its directory (ext4 with fast commits), and so is a
// batch that had to fall back mid-way because writeout stopped being
// available; the btrfs fallback is durable under both; the fallback that
// commits by directory (a writeout, then a directory's fsync) is durable
// under M_J only, which is why it runs only on ext4 with a journal; an
// object whose writeout failed is not published and the others stay
// durable.
func TestBatchCrashModels(t *testing.T) {
	const n = 400
	tests := []struct {
		name   string
		kind   string
		flaky  error
		mj, mp bool // durable?
		want   int  // objects published
	}{
		{"batch", "ext4", nil, true, false, n},
		{"batch, directory commit", "ext4 with fast_commit", nil, true, false, n},
		{"fallback on btrfs", "btrfs", nil, true, true, n},
		{"writeout unsupported mid-batch", "ext4", fmt.Errorf("gone: %w", errors.ErrUnsupported), true, false, n},
		{"fallback with directory commits", "ext4 with journal_async_commit and fast_commit", nil, true, false, n},
		{"writeout fails mid-batch", "ext4", memfstest.EIO, true, false, n / 2},
	}
	for _, tt := range tests {
		m := memfstest.New("/r/objects")
		m.FSKind = tt.kind
		var fsys batch.FS = m
		if tt.flaky != nil {
			fsys = flakyWriteout{m, n / 2, tt.flaky, &atomic.Int64{}}
		}
		p := batch.New(fsys, "/r/objects", batch.Options{Method: batch.Batch})
		names := storeObjects(t, fsys, p, n)
		if len(names) != tt.want {
			t.Fatalf("%s: %d published, want %d (%+v)", tt.name, len(names), tt.want, p.Stats())
		}
		for _, mm := range []struct {
			model   crashtest.Model
			durable bool
		}{{crashtest.MJ, tt.mj}, {crashtest.MP, tt.mp}} {
			rep := checkModel(t, m, mm.model, names)
			if rep.Durable() != mm.durable {
				t.Errorf("%s under %v: durable %v, want %v; %v\n%v", tt.name, mm.model, rep.Durable(), mm.durable, rep, rep.Err())
			}
			if rep.Objects != tt.want {
				t.Errorf("%s: %d objects in the trace", tt.name, rep.Objects)
			}
		}
	}
}
