package batch_test

import (
	"regexp"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/memfstest"
)

// adopt makes the files git would have written around a fetch (two refs in
// /r/refs/heads, a config in /r), then adopts them, with the removal of a
// third ref among them, through a transaction, and returns the operations
// the transaction made, the commit's own file named tmp_commit.
func adopt(t *testing.T, kind string, method batch.Method, last func(*batch.Transaction) error) string {
	t.Helper()
	m := memfstest.New("/r/refs/heads")
	for _, name := range []string{"/r/refs/heads/a", "/r/refs/heads/b", "/r/refs/heads/gone", "/r/config"} {
		f, err := m.Create(name, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("data\n"))
		f.Close()
	}
	before := len(m.Events())
	m.FSKind = kindNamed(t, kind)
	p := batch.New(m, "/r", batch.Options{Method: method})
	tx := p.Begin()
	for _, name := range []string{"/r/refs/heads/a", "/r/refs/heads/b"} {
		if err := tx.Adopt(name); err != nil {
			t.Fatal(err)
		}
	}
	tx.AdoptDir("/r/refs")
	if err := tx.Remove("/r/refs/heads/gone"); err != nil {
		t.Fatal(err)
	}
	if err := last(tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.End(); err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`tmp_commit_\d+_\d+`).ReplaceAllString(ops(m.Events()[before:]), "tmp_commit")
}

// TestAdopt: files another process wrote and named are written out (or
// fully synced on the fsync paths), and End commits their names: on the
// batch path through one flush of a directory after an operation of the
// transaction's own there (the names were given before the transaction
// began, so a flush of the last adopted file could commit an older journal
// transaction only), or of the file renamed after them; on the fallback,
// every directory involved.
func TestAdopt(t *testing.T) {
	config := func(tx *batch.Transaction) error { return tx.Adopt("/r/config") }
	tests := []struct {
		kind   string
		method batch.Method
		last   func(*batch.Transaction) error
		want   string
	}{
		{"ext4", batch.Batch, config, `writeout /r/refs/heads/a
close /r/refs/heads/a
writeout /r/refs/heads/b
close /r/refs/heads/b
remove /r/refs/heads/gone
writeout /r/config
close /r/config
close /r/tmp_commit
remove /r/tmp_commit
flushdir /r
`},
		// A removal last: its directory holds the newest change.
		{"xfs", batch.Batch, func(*batch.Transaction) error { return nil }, `writeout /r/refs/heads/a
close /r/refs/heads/a
writeout /r/refs/heads/b
close /r/refs/heads/b
remove /r/refs/heads/gone
flushdir /r/refs/heads
`},
		{"ext4 with fast_commit", batch.Batch, config, `writeout /r/refs/heads/a
close /r/refs/heads/a
writeout /r/refs/heads/b
close /r/refs/heads/b
remove /r/refs/heads/gone
writeout /r/config
close /r/config
close /r/tmp_commit
remove /r/tmp_commit
flushdir /r
`},
		{"btrfs", batch.Batch, config, `sync /r/refs/heads/a
close /r/refs/heads/a
sync /r/refs/heads/b
close /r/refs/heads/b
remove /r/refs/heads/gone
sync /r/config
close /r/config
flushdir /r
flushdir /r/refs
flushdir /r/refs/heads
`},
		{"ext4", batch.None, config, `close /r/refs/heads/a
close /r/refs/heads/b
remove /r/refs/heads/gone
close /r/config
`},
	}
	for _, tt := range tests {
		if got := adopt(t, tt.kind, tt.method, tt.last); got != tt.want {
			t.Errorf("%v on %s:\n%s\nwant\n%s", tt.method, tt.kind, got, tt.want)
		}
	}
}
