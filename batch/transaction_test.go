package batch_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/memfstest"
)

// publish writes n objects through a transaction and returns the events.
func publish(t *testing.T, m *memfstest.FS, p *batch.Policy, n int) []memfstest.Event {
	t.Helper()
	tx := p.Begin()
	for i := 0; i < n; i++ {
		dir := fmt.Sprintf("/o/%02x", i%2)
		if _, err := m.Stat(dir); err != nil {
			if err := tx.Mkdir(dir, 0o777); err != nil {
				t.Fatal(err)
			}
		}
		f, err := m.Create(filepath.Join(dir, fmt.Sprintf("tmp_%d", i)), 0o444)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("data"))
		if err := tx.Commit(f, filepath.Join(dir, fmt.Sprintf("obj%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.End(); err != nil {
		t.Fatal(err)
	}
	return m.Events()
}

// ops renders events as "op path" lines without writes and creates.
func ops(evs []memfstest.Event) string {
	var b strings.Builder
	for _, e := range evs {
		switch e.Op {
		case memfstest.OpWrite, memfstest.OpCreate:
			continue
		case memfstest.OpRename:
			fmt.Fprintf(&b, "%s %s\n", e.Op, e.Path2)
		default:
			fmt.Fprintf(&b, "%s %s\n", e.Op, e.Path)
		}
	}
	return b.String()
}

func TestMethods(t *testing.T) {
	tests := []struct {
		method  batch.Method
		kind    string
		path    batch.Path
		want    string
		wo, flu int64
	}{
		{batch.Batch, "ext4", batch.PathBatch, `mkdir /o/00
writeout /o/00/tmp_0
close /o/00/tmp_0
rename /o/00/obj0
mkdir /o/01
writeout /o/01/tmp_1
close /o/01/tmp_1
rename /o/01/obj1
writeout /o/00/tmp_2
close /o/00/tmp_2
rename /o/00/obj2
flush /o/00/obj2
`, 3, 1},
		{batch.Fsync, "ext4", batch.PathFsync, `mkdir /o/00
sync /o/00/tmp_0
close /o/00/tmp_0
rename /o/00/obj0
mkdir /o/01
sync /o/01/tmp_1
close /o/01/tmp_1
rename /o/01/obj1
sync /o/00/tmp_2
close /o/00/tmp_2
rename /o/00/obj2
flushdir /o
flushdir /o/00
flushdir /o/01
`, 0, 6},
		{batch.Batch, "btrfs", batch.PathFallback, "", 0, 6},
		// Fast commits: every full flush is a directory's, a full commit.
		{batch.Batch, "ext4 with fast_commit", batch.PathBatch, `mkdir /o/00
writeout /o/00/tmp_0
close /o/00/tmp_0
rename /o/00/obj0
mkdir /o/01
writeout /o/01/tmp_1
close /o/01/tmp_1
rename /o/01/obj1
writeout /o/00/tmp_2
close /o/00/tmp_2
rename /o/00/obj2
flushdir /o/00
`, 3, 1},
		{batch.Batch, "ext4, fast_commit unknown", batch.PathBatch, "", 3, 1},
		{batch.Fsync, "ext4 with fast_commit", batch.PathFsync, `mkdir /o/00
writeout /o/00/tmp_0
flushdir /o/00
close /o/00/tmp_0
rename /o/00/obj0
mkdir /o/01
writeout /o/01/tmp_1
flushdir /o/01
close /o/01/tmp_1
rename /o/01/obj1
writeout /o/00/tmp_2
flushdir /o/00
close /o/00/tmp_2
rename /o/00/obj2
flushdir /o
flushdir /o/00
flushdir /o/01
`, 3, 6},
		{batch.Batch, "ext4 with journal_async_commit and fast_commit", batch.PathFallback, "", 3, 9},
		{batch.WriteoutOnly, "ext4", batch.PathWriteoutOnly, "", 3, 0},
		{batch.None, "ext4", batch.PathNone, "", 0, 0},
	}
	for _, tt := range tests {
		m := memfstest.New("/o")
		m.FSKind = kindNamed(t, tt.kind)
		p := batch.New(m, "/o", batch.Options{Method: tt.method})
		got := ops(publish(t, m, p, 3))
		if tt.want != "" && got != tt.want {
			t.Errorf("%v on %s:\n%s\nwant\n%s", tt.method, tt.kind, got, tt.want)
		}
		st := p.Stats()
		if st.Path != tt.path || st.WriteoutOnly != tt.wo || st.HardwareFlush != tt.flu {
			t.Errorf("%v on %s: stats %+v", tt.method, tt.kind, st)
		}
		if tt.path == batch.PathFallback && !strings.Contains(st.Reason, tt.kind) {
			t.Errorf("fallback reason %q", st.Reason)
		}
	}
}

func TestNoFlush(t *testing.T) {
	m := memfstest.New("/o")
	p := batch.New(m, "/o", batch.Options{Method: batch.Batch, NoFlush: true})
	if got := ops(publish(t, m, p, 2)); strings.Contains(got, "flush") {
		t.Errorf("flushed with NoFlush:\n%s", got)
	}
	if st := p.Stats(); st.WriteoutOnly != 2 || st.HardwareFlush != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestFailedWriteoutPublishesNothing(t *testing.T) {
	m := memfstest.New("/o")
	m.Fail = func(i int, ev memfstest.Event) error {
		if ev.Op == memfstest.OpWriteout {
			return memfstest.EIO
		}
		return nil
	}
	p := batch.New(m, "/o", batch.Options{Method: batch.Batch})
	tx := p.Begin()
	f, _ := m.Create("/o/tmp", 0o444)
	f.Write([]byte("x"))
	if err := tx.Commit(f, "/o/final"); !errors.Is(err, memfstest.EIO) {
		t.Fatalf("commit: %v", err)
	}
	if err := tx.End(); err != nil {
		t.Fatal(err)
	}
	if names, _ := m.ReadDir("/o"); len(names) != 0 {
		t.Errorf("left %v", names)
	}
}

type unsupportedFile struct{ batch.File }

func (unsupportedFile) Writeout() error { return fmt.Errorf("no: %w", errors.ErrUnsupported) }

func TestWriteoutUnsupportedFallsBack(t *testing.T) {
	m := memfstest.New("/o")
	p := batch.New(m, "/o", batch.Options{Method: batch.Batch})
	tx := p.Begin()
	f, _ := m.Create("/o/tmp", 0o444)
	if err := tx.Commit(unsupportedFile{f}, "/o/final"); err != nil {
		t.Fatal(err)
	}
	if err := tx.End(); err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	if st.Path != batch.PathFallback || st.HardwareFlush != 2 || !strings.Contains(st.Reason, "writeout") {
		t.Errorf("stats %+v\n%s", st, ops(m.Events()))
	}
}

// TestParallelLastIsLastRename commits from many goroutines and checks that
// the one flush comes after every rename and names the file renamed last.
func TestParallelLastIsLastRename(t *testing.T) {
	m := memfstest.New("/o")
	p := batch.New(m, "/o", batch.Options{Method: batch.Batch})
	tx := p.Begin()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				f, err := m.Create(fmt.Sprintf("/o/tmp_%d_%d", w, i), 0o444)
				if err != nil {
					t.Error(err)
					return
				}
				f.Write([]byte{byte(i)})
				if err := tx.Commit(f, fmt.Sprintf("/o/obj_%d_%d", w, i)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if err := tx.End(); err != nil {
		t.Fatal(err)
	}
	evs := m.Events()
	lastRename, flushes := "", 0
	for _, e := range evs {
		switch e.Op {
		case memfstest.OpRename:
			if flushes > 0 {
				t.Fatal("rename after the flush")
			}
			lastRename = e.Path2
		case memfstest.OpFlush:
			flushes++
			if e.Path != lastRename {
				t.Errorf("flushed %s, last rename was %s", e.Path, lastRename)
			}
		}
	}
	if flushes != 1 || p.Stats().WriteoutOnly != 400 {
		t.Errorf("%d flushes, stats %+v", flushes, p.Stats())
	}
}

// startingFile counts the writeouts started on it.
type startingFile struct {
	batch.File
	started *int
}

func (f startingFile) StartWriteout() error { *f.started++; return nil }

// TestWrittenStartsWriteout checks that Written starts the writeback only
// where Commit will wait for a writeout, and that a start does not count as
// one: the counter and the events still show one writeout per object.
func TestWrittenStartsWriteout(t *testing.T) {
	for _, tc := range []struct {
		method batch.Method
		starts int
	}{
		{batch.Batch, 1}, {batch.WriteoutOnly, 1}, {batch.Fsync, 0}, {batch.None, 0},
	} {
		m := memfstest.New("/o")
		p := batch.New(m, "/o", batch.Options{Method: tc.method, Force: true})
		tx := p.Begin()
		f, _ := m.Create("/o/tmp", 0o444)
		f.Write([]byte("data"))
		started := 0
		sf := startingFile{f, &started}
		tx.Written(sf)
		if err := tx.Commit(sf, "/o/final"); err != nil {
			t.Fatal(err)
		}
		if err := tx.End(); err != nil {
			t.Fatal(err)
		}
		if started != tc.starts {
			t.Errorf("%v: %d writeouts started, want %d", tc.method, started, tc.starts)
		}
		if tc.starts == 1 && p.Stats().WriteoutOnly != 1 {
			t.Errorf("%v: stats %+v, want one writeout", tc.method, p.Stats())
		}
	}
}
