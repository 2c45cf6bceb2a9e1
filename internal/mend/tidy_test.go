package mend

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/quarantine"
)

const (
	git  = "/r.git"
	idA  = "1111111111111111111111111111111111111111"
	idB  = "2222222222222222222222222222222222222222"
	torn = "# pack-refs with: peeled fully-peeled sorted \n" + idA + " refs/heads/a\n" + idB + " refs/heads/b\n" + idA + " refs/ta"
	kept = "# pack-refs with: peeled fully-peeled sorted \n" + idA + " refs/heads/a\n" + idB + " refs/heads/b\n"
)

// crashedRepo is a git directory as a crash during an update leaves it:
// lock files from before the boot, a torn packed-refs, a garbled loose
// ref beside a sound one. Its files, and what git reads of each, are in
// the memory filesystem it returns, with the number of events that made
// them.
func crashedRepo(t *testing.T) (*memfstest.FS, int) {
	t.Helper()
	m := memfstest.New(git+"/refs/heads", git+"/refs/tags", git+"/objects")
	long := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for path, data := range map[string]string{
		"HEAD": "ref: refs/heads/main\n", "packed-refs": torn, "refs/heads/main": idB + "\n",
		"refs/heads/bad": "garbled by a crash\n", "HEAD.lock": "", "refs/heads/x.lock": idA + "\n",
	} {
		f, err := m.Create(filepath.Join(git, path), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(data))
		f.Close()
		m.Chtimes(filepath.Join(git, path), long)
	}
	return m, len(m.Events())
}

// tidy runs Tidy on the crashed repository in m, booted now, with no live
// process in it.
func tidy(m *memfstest.FS) (Tidied, *quarantine.Dir, error) {
	q := quarantine.New(m, git, time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC))
	t, err := Tidy(git, TidyOptions{Booted: time.Now(), Cutoff: time.Now().Add(-time.Hour), Quarantine: q, FS: m,
		Busy: func(string) ([]int, bool) { return nil, true }})
	return t, q, err
}

// asReadable says what a state of the repository (read) lacks that git
// read before Tidy: packed-refs whole, before or after (never cut, never
// absent); the sound ref as it was; every file set aside where it was or
// in the quarantine run's folder (run), whole.
func asReadable(read func(string) ([]byte, bool), run string) string {
	var why []string
	if b, ok := read(git + "/packed-refs"); !ok || string(b) != torn && string(b) != kept {
		why = append(why, fmt.Sprintf("packed-refs %q (there: %v)", b, ok))
	}
	if b, ok := read(git + "/refs/heads/main"); !ok || string(b) != idB+"\n" {
		why = append(why, "refs/heads/main lost")
	}
	for path, data := range map[string]string{"refs/heads/bad": "garbled by a crash\n", "HEAD.lock": "", "refs/heads/x.lock": idA + "\n"} {
		b, here := read(filepath.Join(git, path))
		c, aside := read(filepath.Join(run, path))
		if !(here && string(b) == data || aside && string(c) == data) {
			why = append(why, path+" neither in place nor set aside whole")
		}
	}
	if b, ok := read(filepath.Join(run, "packed-refs")); ok && string(b) != torn {
		why = append(why, fmt.Sprintf("the packed-refs kept aside is %q", b))
	}
	return strings.Join(why, "; ")
}

// TestTidyCrash: Tidy sets aside the stale locks and the garbled ref and
// writes packed-refs again without its torn line; in every crash state of
// its run (ext4, xfs) git reads what it read before — packed-refs whole,
// every ref, each file set aside either in its place or in the quarantine
// — and from its return on, the new packed-refs with the torn one kept.
func TestTidyCrash(t *testing.T) {
	m, setup := crashedRepo(t)
	got, q, err := tidy(m)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Locks, " ") != "HEAD.lock refs/heads/x.lock" || got.TornLines != 1 || strings.Join(got.BrokenRefs, " ") != "refs/heads/bad" {
		t.Errorf("tidied %+v", got)
	}
	rep, err := crashtest.Readable(m, setup, func(read func(string) ([]byte, bool)) string { return asReadable(read, q.Path()) })
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Durable() {
		t.Error(rep.Err())
	}
	if b, _ := m.ReadFile(git + "/packed-refs"); string(b) != kept {
		t.Errorf("packed-refs after: %q", b)
	}
	for _, p := range []string{"refs/heads/bad", "HEAD.lock", "refs/heads/x.lock", "packed-refs"} {
		if _, err := m.Stat(filepath.Join(q.Path(), p)); err != nil {
			t.Errorf("%s not kept aside: %v", p, err)
		}
	}
	t.Log(rep)
}

// TestTidyFaults fails Tidy's k-th filesystem operation, for every k, with
// EIO and ENOSPC: the run returns the fault, and what it leaves is as
// readable as before (asReadable).
func TestTidyFaults(t *testing.T) {
	m, setup := crashedRepo(t)
	if _, _, err := tidy(m); err != nil {
		t.Fatal(err)
	}
	ops := len(m.Events()) - setup
	for k := range ops {
		for _, fault := range []error{memfstest.EIO, memfstest.ENOSPC} {
			m, setup := crashedRepo(t)
			var failed *memfstest.Event
			m.Fail = func(i int, ev memfstest.Event) error {
				if i == setup+k {
					failed = &ev
					return fault
				}
				return nil
			}
			_, q, err := tidy(m)
			if failed == nil {
				continue
			}
			if !errors.Is(err, fault) {
				t.Errorf("op %d (%s %s) failed with %v: Tidy returned %v", k, failed.Op, failed.Path, fault, err)
			}
			read := func(p string) ([]byte, bool) { b, err := m.ReadFile(p); return b, err == nil }
			if why := asReadable(read, q.Path()); why != "" {
				t.Errorf("op %d (%s %s) failed with %v: %s", k, failed.Op, failed.Path, fault, why)
			}
		}
	}
}

// writeoutless drops every writeout-only sync: a file renamed into place
// holds nothing until the flush after it.
type writeoutless struct{ *memfstest.FS }

type writeoutlessFile struct{ batch.File }

func (writeoutlessFile) Writeout() error { return nil }

func (m writeoutless) Create(name string, perm fs.FileMode) (batch.File, error) {
	f, err := m.FS.Create(name, perm)
	if err != nil {
		return nil, err
	}
	return writeoutlessFile{f}, nil
}

// deleter removes what it is asked to set aside (a rename into the
// quarantine), as the runner did before.
type deleter struct{ *memfstest.FS }

func (m deleter) Rename(from, to string) error {
	if strings.Contains(to, quarantine.Name) {
		return m.FS.Remove(from)
	}
	return m.FS.Rename(from, to)
}

// TestTidyMutants: a packed-refs renamed into place before it is written
// out, or a file deleted where it should be set aside, is caught: some
// crash state of the run reads less than before.
func TestTidyMutants(t *testing.T) {
	for name, wrap := range map[string]func(*memfstest.FS) batch.FS{
		"no writeout": func(m *memfstest.FS) batch.FS { return writeoutless{m} },
		"deleted":     func(m *memfstest.FS) batch.FS { return deleter{m} },
	} {
		m, setup := crashedRepo(t)
		fsys := wrap(m)
		q := quarantine.New(fsys, git, time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC))
		if _, err := Tidy(git, TidyOptions{Booted: time.Now(), Cutoff: time.Now().Add(-time.Hour), Quarantine: q, FS: fsys,
			Busy: func(string) ([]int, bool) { return nil, true }}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rep, err := crashtest.Readable(m, setup, func(read func(string) ([]byte, bool)) string { return asReadable(read, q.Path()) })
		if err != nil {
			t.Fatal(err)
		}
		if rep.BadReadable == 0 {
			t.Errorf("%s: no crash state less readable: %v", name, rep)
		}
	}
}
