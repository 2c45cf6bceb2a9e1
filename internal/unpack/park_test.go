package unpack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// waitingPack builds n REF deltas of size bytes each on a base blob, each
// followed by an OFS delta on it (which waits for an entry, not an id),
// and the base at the end when withBase. It returns the pack and the
// content of every object that resolves, by id.
func waitingPack(n, size int, withBase bool) ([]byte, map[object.ID]string) {
	base := []byte("the base every REF delta waits for\n")
	baseID, _ := object.SHA1.Sum(object.Blob, base)
	want := map[object.ID]string{}
	add := func(data []byte) {
		id, _ := object.SHA1.Sum(object.Blob, data)
		want[id] = string(data)
	}
	b := &packtest.Builder{}
	for i := 0; i < n; i++ {
		ins := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		copy(ins, fmt.Sprintf("delta %d\n", i))
		d := (&packtest.Delta{}).Copy(0, uint32(len(base))).Insert(ins)
		k := b.RefDelta(baseID, d.Bytes(uint64(len(base)), uint64(len(base)+size)))
		first := append(append([]byte{}, base...), ins...)
		add(first)
		tail := fmt.Sprintf("and an OFS delta on delta %d\n", i)
		od := (&packtest.Delta{}).Copy(0, 100).Insert([]byte(tail))
		b.OfsDelta(k, od.Bytes(uint64(len(first)), uint64(100+len(tail))))
		add(append(append([]byte{}, first[:100]...), tail...))
	}
	if withBase {
		b.Object(object.Blob, base)
		add(base)
	}
	return b.Pack(), want
}

// TestWaitingDeltasAreReread unpacks a pack whose REF deltas, several
// times parkMax of them, all come before their base: the deltas dropped
// while they waited are read back, from the kept pack or from the spill
// file, and every object resolves to the right content, whatever the
// number of workers; the spill file is gone after the run. When the spill
// file cannot be created, the deltas are held instead.
func TestWaitingDeltasAreReread(t *testing.T) {
	n, size := 3*parkMax/(1<<20), 1<<20
	p, want := waitingPack(n, size, true)
	for _, tc := range []struct {
		workers     int
		keep, nospc bool
	}{{1, true, false}, {2, true, false}, {1, false, false}, {2, false, false}, {2, false, true}} {
		name := fmt.Sprintf("%d workers, keep=%v, nospc=%v", tc.workers, tc.keep, tc.nospc)
		m := memfstest.New(objs, objs+"/pack")
		spilled := false
		m.Fail = func(_ int, ev memfstest.Event) error {
			if !strings.Contains(ev.Path, "tmp_spill_") {
				return nil
			}
			spilled = true
			if tc.nospc {
				return memfstest.ENOSPC
			}
			return nil
		}
		store, policy := newStore(m)
		var mu sync.Mutex
		got := map[object.ID]string{}
		opts := Options{Workers: tc.workers, Object: func(id object.ID, _ object.Type, data []byte) {
			mu.Lock()
			got[id] = string(data)
			mu.Unlock()
		}}
		if tc.keep {
			opts.Keep = &Keep{}
		}
		res, err := Run(context.Background(), bytes.NewReader(p), store, policy, opts)
		if err != nil || tc.keep != (res.Pack != "") {
			t.Fatalf("%s: %+v %v", name, res, err)
		}
		if spilled == tc.keep {
			t.Errorf("%s: a spill file was asked for: %v", name, spilled)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %d objects resolved, want %d", name, len(got), len(want))
		}
		for id, data := range want {
			if got[id] != data {
				t.Errorf("%s: %v resolved to %d bytes, want %d", name, id, len(got[id]), len(data))
			}
		}
		names, _ := m.ReadDir(objs + "/pack")
		for _, n := range names {
			if strings.HasPrefix(n, "tmp_") {
				t.Errorf("%s: %s left behind", name, n)
			}
		}
	}
}

// TestUnresolvedDeltas: a pack whose base never comes fails, kept, with
// git index-pack's count of unresolved deltas (the OFS deltas on them
// included) and leaves no temporary file; exploded, with git
// unpack-objects' message.
func TestUnresolvedDeltas(t *testing.T) {
	n := 2 * parkMax / (1 << 20)
	p, _ := waitingPack(n, 1<<20, false)
	b := &packtest.Builder{}
	id, _ := object.SHA1.Sum(object.Blob, []byte("nowhere"))
	b.RefDelta(id, (&packtest.Delta{}).Insert([]byte("x")).Bytes(7, 1))
	one := b.Pack()
	tests := []struct {
		pack []byte
		keep bool
		want string
	}{
		{p, true, fmt.Sprintf("fatal: pack has %d unresolved deltas", 2*n)},
		{one, true, "fatal: pack has 1 unresolved delta"},
		{p, false, "fatal: unresolved deltas left after unpacking"},
	}
	for _, tt := range tests {
		m := memfstest.New(objs, objs+"/pack")
		store, policy := newStore(m)
		opts := Options{Workers: 2}
		if tt.keep {
			opts.Keep = &Keep{File: true}
		}
		_, err := Run(context.Background(), bytes.NewReader(tt.pack), store, policy, opts)
		if !errors.Is(err, ErrUnresolved) {
			t.Fatalf("keep=%v: %v, want unresolved deltas", tt.keep, err)
		}
		lines, kind := Describe(err)
		var text []string
		for _, l := range lines {
			text = append(text, l.String())
		}
		if kind != Fatal || strings.Join(text, "\n") != tt.want {
			t.Errorf("keep=%v: described as %q (kind %v), want %q", tt.keep, lines, kind, tt.want)
		}
		names, _ := m.ReadDir(objs + "/pack")
		if len(names) != 0 {
			t.Errorf("keep=%v: left in objects/pack: %v", tt.keep, names)
		}
	}
}
