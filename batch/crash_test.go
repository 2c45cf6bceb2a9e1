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
// checker, each under the models that say something about it: M_J
// (journal commits preceded by a cache flush: ext4 data=ordered, xfs), M_A
// (commit records without that flush: ext4 journal_async_commit) and M_P
// (POSIX-strict, btrfs-like). Batch is durable under M_J only, with the
// flush of the last object or of its directory (ext4 with fast commits),
// and so is a batch that had to fall back mid-way because writeout stopped
// being available; the btrfs fallback is durable under all three. The
// fallbacks of an ext4 with journal_async_commit must be durable under
// M_A: fsync per object, and where fast commits are on or unknown the
// directory commits, each followed by an fdatasync of the object for its
// cache flush (without it M_A fails: the data is only written out). M_J is
// not asked of them: it assumes the very flush that async commit drops.
// An object whose writeout failed is not published and the others stay
// durable.
func TestBatchCrashModels(t *testing.T) {
	const n = 400
	type durable map[crashtest.Model]bool
	tests := []struct {
		name  string
		kind  string
		flaky error
		want  durable
		objs  int // objects published
	}{
		{"batch", "ext4", nil, durable{crashtest.MJ: true, crashtest.MA: false, crashtest.MP: false}, n},
		{"batch, directory commit", "ext4 with fast_commit", nil, durable{crashtest.MJ: true, crashtest.MA: false, crashtest.MP: false}, n},
		{"fallback on btrfs", "btrfs", nil, durable{crashtest.MJ: true, crashtest.MA: true, crashtest.MP: true}, n},
		{"writeout unsupported mid-batch", "ext4", fmt.Errorf("gone: %w", errors.ErrUnsupported), durable{crashtest.MJ: true, crashtest.MP: false}, n},
		{"fallback on journal_async_commit", "ext4 with journal_async_commit", nil, durable{crashtest.MA: true, crashtest.MP: true}, n},
		{"fallback with directory commits", "ext4 with journal_async_commit and fast_commit", nil, durable{crashtest.MA: true, crashtest.MP: true}, n},
		{"fallback with directory commits, fast_commit unknown", "ext4 with journal_async_commit, fast_commit unknown", nil, durable{crashtest.MA: true, crashtest.MP: true}, n},
		{"writeout fails mid-batch", "ext4", memfstest.EIO, durable{crashtest.MJ: true, crashtest.MP: false}, n / 2},
	}
	for _, tt := range tests {
		m := memfstest.New("/r/objects")
		m.FSKind = kindNamed(t, tt.kind)
		var fsys batch.FS = m
		if tt.flaky != nil {
			fsys = flakyWriteout{m, n / 2, tt.flaky, &atomic.Int64{}}
		}
		p := batch.New(fsys, "/r/objects", batch.Options{Method: batch.Batch})
		names := storeObjects(t, fsys, p, n)
		if len(names) != tt.objs {
			t.Fatalf("%s: %d published, want %d (%+v)", tt.name, len(names), tt.objs, p.Stats())
		}
		for _, model := range []crashtest.Model{crashtest.MJ, crashtest.MA, crashtest.MP} {
			want, asked := tt.want[model]
			if !asked {
				continue
			}
			rep := checkModel(t, m, model, names)
			if rep.Durable() != want {
				t.Errorf("%s under %v: durable %v, want %v; %v\n%v", tt.name, model, rep.Durable(), want, rep, rep.Err())
			}
			if rep.Objects != tt.objs {
				t.Errorf("%s: %d objects in the trace", tt.name, rep.Objects)
			}
		}
	}
}

// TestAsyncCommitFlushes: on a filesystem whose commits may not flush the
// device (journal_async_commit), where fast commits are on or unknown, the
// fallback and the fsync method give each object a writeout, its
// directory's fsync and then an fdatasync, the cache flush, before the
// rename; where fast commits are off, an fsync of the object does it all.
func TestAsyncCommitFlushes(t *testing.T) {
	const dirCommits = `mkdir /o/00
writeout /o/00/tmp_0
flushdir /o/00
datasync /o/00/tmp_0
close /o/00/tmp_0
rename /o/00/obj0
mkdir /o/01
writeout /o/01/tmp_1
flushdir /o/01
datasync /o/01/tmp_1
close /o/01/tmp_1
rename /o/01/obj1
writeout /o/00/tmp_2
flushdir /o/00
datasync /o/00/tmp_2
close /o/00/tmp_2
rename /o/00/obj2
flushdir /o
flushdir /o/00
flushdir /o/01
`
	tests := []struct {
		method  batch.Method
		kind    string
		want    string
		wo, flu int64
	}{
		{batch.Batch, "ext4 with journal_async_commit and fast_commit", dirCommits, 3, 9},
		{batch.Fsync, "ext4 with journal_async_commit, fast_commit unknown", dirCommits, 3, 9},
		{batch.Batch, "ext2/3/4 of an unknown configuration", dirCommits, 3, 9},
		{batch.Batch, "ext4 with journal_async_commit", "", 0, 6},
	}
	for _, tt := range tests {
		m := memfstest.New("/o")
		m.FSKind = kindNamed(t, tt.kind)
		p := batch.New(m, "/o", batch.Options{Method: tt.method})
		got := ops(publish(t, m, p, 3))
		if tt.want != "" && got != tt.want {
			t.Errorf("%v on %s:\n%s\nwant\n%s", tt.method, tt.kind, got, tt.want)
		}
		if st := p.Stats(); st.WriteoutOnly != tt.wo || st.HardwareFlush != tt.flu {
			t.Errorf("%v on %s: stats %+v", tt.method, tt.kind, st)
		}
	}
}
