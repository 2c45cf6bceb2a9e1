package mend

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/quarantine"
)

// emptyTable is a reftable with no record, as git writes one: a version 1
// header, then the footer (the header again, five zero positions, its
// CRC-32).
func emptyTable() string {
	h := append([]byte("REFT\x01\x00\x10\x00"), make([]byte, 16)...)
	binary.BigEndian.PutUint64(h[8:], 1)
	binary.BigEndian.PutUint64(h[16:], 1)
	footer := append(append([]byte{}, h...), make([]byte, 40)...)
	footer = binary.BigEndian.AppendUint32(footer, crc32.ChecksumIEEE(footer))
	return string(h) + string(footer)
}

const (
	goodTable = "0x000000000001-0x000000000001-aaaaaaaa.ref"
	tornTable = "0x000000000002-0x000000000002-bbbbbbbb.ref"
)

// crashedReftable is a reftable repository as a crash leaves it: its
// newest table empty under its name (written without a sync).
func crashedReftable(t *testing.T) (*memfstest.FS, int) {
	t.Helper()
	m := memfstest.New(git+"/reftable", git+"/refs", git+"/objects")
	for path, data := range map[string]string{
		"HEAD": "ref: refs/heads/.invalid\n", "refs/heads": "this repository uses the reftable format\n",
		"reftable/tables.list": goodTable + "\n" + tornTable + "\n", "reftable/" + goodTable: emptyTable(), "reftable/" + tornTable: "",
	} {
		f, err := m.Create(filepath.Join(git, path), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(data))
		f.Close()
		m.Chtimes(filepath.Join(git, path), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	return m, len(m.Events())
}

// TestTidyReftableCrash: Tidy writes tables.list again without the table
// git cannot read and sets that table aside; in every crash state of its
// run (ext4, xfs) tables.list is the old one or the new one, whole, the
// good table whole, the torn one in its place or in the quarantine, and
// refs/heads (git's stub) untouched.
func TestTidyReftableCrash(t *testing.T) {
	m, setup := crashedReftable(t)
	got, q, err := tidy(m)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.TornTables, " ") != tornTable || len(got.BrokenRefs) != 0 {
		t.Errorf("tidied %+v", got)
	}
	rep, err := crashtest.Readable(m, setup, func(read func(string) ([]byte, bool)) string {
		var why []string
		if b, ok := read(git + "/reftable/tables.list"); !ok || string(b) != goodTable+"\n"+tornTable+"\n" && string(b) != goodTable+"\n" {
			why = append(why, fmt.Sprintf("tables.list %q (there: %v)", b, ok))
		}
		if b, ok := read(git + "/reftable/" + goodTable); !ok || string(b) != emptyTable() {
			why = append(why, "the good table lost")
		}
		_, here := read(git + "/reftable/" + tornTable)
		_, aside := read(filepath.Join(q.Path(), "reftable", tornTable))
		if !here && !aside {
			why = append(why, "the torn table neither in place nor set aside")
		}
		if b, ok := read(git + "/refs/heads"); !ok || !strings.HasPrefix(string(b), "this repository uses") {
			why = append(why, "refs/heads touched")
		}
		return strings.Join(why, "; ")
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Durable() {
		t.Error(rep.Err())
	}
	if b, _ := m.ReadFile(git + "/reftable/tables.list"); string(b) != goodTable+"\n" {
		t.Errorf("tables.list after: %q", b)
	}
	for _, p := range []string{"reftable/tables.list", "reftable/" + tornTable} {
		if _, err := m.Stat(filepath.Join(q.Path(), p)); err != nil {
			t.Errorf("%s not kept aside: %v", p, err)
		}
	}
	t.Log(rep)
}

// TestTidyReftableHeld: a tables.list.lock of a live writer leaves the
// stack as it is.
func TestTidyReftableHeld(t *testing.T) {
	m, _ := crashedReftable(t)
	f, err := m.Create(git+"/reftable/tables.list.lock", 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close() // written now, in this boot: a live writer's
	q := quarantine.New(m, git, time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC))
	got, err := Tidy(git, TidyOptions{Booted: time.Date(2000, 1, 2, 0, 0, 0, 0, time.UTC), Cutoff: time.Now().Add(-time.Hour), Quarantine: q, FS: m,
		Busy: func(string) ([]int, bool) { return []int{42}, true }})
	if err != nil || len(got.TornTables) != 0 || len(got.Locks) != 0 {
		t.Fatalf("tidied %+v, %v", got, err)
	}
	if b, _ := m.ReadFile(git + "/reftable/tables.list"); string(b) != goodTable+"\n"+tornTable+"\n" {
		t.Errorf("tables.list: %q", b)
	}
}
