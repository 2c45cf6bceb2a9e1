package loose_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/quarantine"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

const (
	gitDir  = "/r.git"
	packDir = gitDir + "/objects/pack"
)

// A pack of three blobs, its index, and the first 60 % of it.
var name, whole, index, cutPack = func() (string, string, string, string) {
	var bases []pack.Base
	for _, text := range []string{"one\n", "two\n", "three\n"} {
		id, _ := object.SHA1.Sum(object.Blob, []byte(text))
		bases = append(bases, pack.Base{ID: id, Type: object.Blob, Data: []byte(text)})
	}
	var p, x bytes.Buffer
	sum, entries, err := pack.WriteWhole(&p, object.SHA1, len(bases), func(i int) (pack.Base, error) { return bases[i], nil }, 1)
	if err != nil {
		panic(err)
	}
	pack.SortIndexEntries(entries)
	if _, err := pack.WriteIndex(&x, entries, sum, object.SHA1); err != nil {
		panic(err)
	}
	return "pack-" + hex.EncodeToString(sum), p.String(), x.String(), p.String()[:p.Len()*6/10]
}()

// damagedPack is a store whose pack is cut short under its index, in a
// memory filesystem, and how many events made it.
func damagedPack(t *testing.T) (*memfstest.FS, int) {
	t.Helper()
	m := memfstest.New(packDir)
	for ext, data := range map[string]string{"pack": cutPack, "idx": index} {
		f, err := m.Create(filepath.Join(packDir, name+"."+ext), 0o444)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(data))
		f.Close()
	}
	return m, len(m.Events())
}

// publishWhole publishes the pack again, whole, over the one cut short.
func publishWhole(m *memfstest.FS) (*quarantine.Dir, error) {
	q := quarantine.New(m, gitDir, time.Date(2026, 12, 6, 5, 0, 0, 0, time.UTC))
	s := loose.Open(m, gitDir+"/objects", loose.Options{Quarantine: q})
	p := batch.New(m, gitDir+"/objects", batch.Options{Method: batch.Batch})
	tx := p.Begin()
	var files []loose.PackFile
	fail := func(err error) (*quarantine.Dir, error) {
		for _, f := range files {
			f.File.Close()
			m.Remove(f.File.Name())
		}
		tx.End()
		return q, err
	}
	for _, ext := range []string{"pack", "idx"} {
		f, err := s.CreatePackTemp(tx, ext)
		if err != nil {
			return fail(err)
		}
		files = append(files, loose.PackFile{Ext: ext, File: f})
		if _, err := f.Write([]byte(map[string]string{"pack": whole, "idx": index}[ext])); err != nil {
			return fail(err)
		}
	}
	sum, _ := hex.DecodeString(strings.TrimPrefix(name, "pack-"))
	_, err := s.PublishPack(tx, sum, files)
	if endErr := tx.End(); err == nil {
		err = endErr
	}
	return q, err
}

// asBefore says what a state of the store (read) lacks that git read
// before: the pack whole or as it was (never absent, never a part), its
// index as it was, and the cut pack kept aside whole where it is.
func asBefore(read func(string) ([]byte, bool), run string) string {
	var why []string
	if b, ok := read(filepath.Join(packDir, name+".pack")); !ok || string(b) != cutPack && string(b) != whole {
		why = append(why, fmt.Sprintf("the pack is %d bytes", len(b)))
	}
	if b, ok := read(filepath.Join(packDir, name+".idx")); !ok || string(b) != index {
		why = append(why, fmt.Sprintf("the index is %d bytes", len(b)))
	}
	if b, ok := read(filepath.Join(run, "objects", "pack", name+".pack")); ok && string(b) != cutPack {
		why = append(why, fmt.Sprintf("kept aside: %d bytes", len(b)))
	}
	return strings.Join(why, "; ")
}

// TestPublishOverCrash: a pack published over one of its name cut short
// replaces it in every crash state at once — the cut one or the whole one,
// never nothing, never a part — with the cut one kept aside; a fault at
// any operation returns it and leaves the same.
func TestPublishOverCrash(t *testing.T) {
	m, setup := damagedPack(t)
	q, err := publishWhole(m)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := crashtest.Readable(m, setup, func(read func(string) ([]byte, bool)) string { return asBefore(read, q.Path()) })
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Durable() {
		t.Error(rep.Err())
	}
	if b, _ := m.ReadFile(filepath.Join(packDir, name+".pack")); string(b) != whole {
		t.Errorf("the pack after: %q", b)
	}
	ops := len(m.Events()) - setup
	for k := range ops {
		m, setup := damagedPack(t)
		var failed *memfstest.Event
		m.Fail = func(i int, ev memfstest.Event) error {
			if i == setup+k {
				failed = &ev
				return memfstest.EIO
			}
			return nil
		}
		q, err := publishWhole(m)
		if failed == nil {
			continue
		}
		// A temporary file that cannot be closed or removed fails
		// nothing: git's prune removes what is left of one.
		cleanup := failed.Op == memfstest.OpClose || failed.Op == memfstest.OpRemove && strings.Contains(failed.Path, "/tmp_")
		if !errors.Is(err, memfstest.EIO) && !cleanup {
			t.Errorf("op %d (%s %s) failed: returned %v", k, failed.Op, failed.Path, err)
		}
		read := func(p string) ([]byte, bool) { b, err := m.ReadFile(p); return b, err == nil }
		if why := asBefore(read, q.Path()); why != "" {
			t.Errorf("op %d (%s %s) failed: %s", k, failed.Op, failed.Path, why)
		}
		if names, _ := m.ReadDir(packDir); len(names) != 2 && !cleanup {
			t.Errorf("op %d (%s %s) failed: left %v", k, failed.Op, failed.Path, names)
		}
	}
}
