package unpack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/internal/memfs"
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

// TestKeepRereadsWaitingDeltas keeps a pack whose REF deltas, several
// times parkMax of them, all come before their base: the deltas dropped
// while they waited are read back from the pack, and every object
// resolves to the right content, whatever the number of workers.
func TestKeepRereadsWaitingDeltas(t *testing.T) {
	n, size := 3*parkMax/(1<<20), 1<<20
	p, want := waitingPack(n, size, true)
	for _, workers := range []int{1, 2} {
		m := memfs.New(objs, objs+"/pack")
		store, policy := newStore(m)
		var mu sync.Mutex
		got := map[object.ID]string{}
		res, err := Run(context.Background(), bytes.NewReader(p), store, policy, Options{
			Workers: workers, Keep: &Keep{},
			Object: func(id object.ID, _ object.Type, data []byte) {
				mu.Lock()
				got[id] = string(data)
				mu.Unlock()
			}})
		if err != nil || res.Pack == "" {
			t.Fatalf("%d workers: %+v %v", workers, res, err)
		}
		if len(got) != len(want) {
			t.Errorf("%d workers: %d objects resolved, want %d", workers, len(got), len(want))
		}
		for id, data := range want {
			if got[id] != data {
				t.Errorf("%d workers: %v resolved to %d bytes, want %d", workers, id, len(got[id]), len(data))
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
		m := memfs.New(objs, objs+"/pack")
		store, policy := newStore(m)
		opts := Options{Workers: 2}
		if tt.keep {
			opts.Keep = &Keep{File: true}
		}
		_, err := Run(context.Background(), bytes.NewReader(tt.pack), store, policy, opts)
		if !errors.Is(err, ErrUnresolved) {
			t.Fatalf("keep=%v: %v, want unresolved deltas", tt.keep, err)
		}
		if lines, kind := Describe(err); kind != Fatal || strings.Join(lines, "\n") != tt.want {
			t.Errorf("keep=%v: described as %q (kind %v), want %q", tt.keep, lines, kind, tt.want)
		}
		names, _ := m.ReadDir(objs + "/pack")
		if len(names) != 0 {
			t.Errorf("keep=%v: left in objects/pack: %v", tt.keep, names)
		}
	}
}
