package unpack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// TestHeal: a thin pack whose REF_DELTA bases are here but empty (what a
// crash leaves) is completed once Heal has written them anew, exploded and
// kept, the deltas on deltas included; Heal is asked once, for each base
// once, in order. When Heal fails, or is not set, the run fails on the
// unreadable base as before.
func TestHeal(t *testing.T) {
	bases := [][]byte{[]byte("the first base, long enough to copy from\n"), []byte("the second base, as long as the first\n")}
	var ids []object.ID
	b := &packtest.Builder{}
	var want []object.ID
	for i, base := range bases {
		id, _ := object.SHA1.Sum(object.Blob, base)
		ids = append(ids, id)
		next := append(append([]byte{}, base...), fmt.Sprintf("edit %d\n", i)...)
		k := b.RefDelta(id, (&packtest.Delta{}).Copy(0, uint32(len(base))).Insert(next[len(base):]).Bytes(uint64(len(base)), uint64(len(next))))
		last := append(append([]byte{}, next...), "again\n"...)
		b.OfsDelta(k, (&packtest.Delta{}).Copy(0, uint32(len(next))).Insert([]byte("again\n")).Bytes(uint64(len(next)), uint64(len(last))))
		for _, d := range [][]byte{next, last} {
			id, _ := object.SHA1.Sum(object.Blob, d)
			want = append(want, id)
		}
	}
	b.RefDelta(ids[0], (&packtest.Delta{}).Copy(0, 9).Bytes(uint64(len(bases[0])), 9))
	short, _ := object.SHA1.Sum(object.Blob, bases[0][:9])
	want = append(want, short)
	p := b.Pack()
	if ids[1].Compare(ids[0]) < 0 {
		ids[0], ids[1] = ids[1], ids[0]
		bases[0], bases[1] = bases[1], bases[0]
	}

	for _, tc := range []struct {
		name    string
		keep    bool
		healErr error
		noHeal  bool
	}{
		{"exploded", false, nil, false},
		{"kept", true, nil, false},
		{"heal fails", false, errors.New("no"), false},
		{"no heal", false, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := memfstest.New(objs)
			store, policy := newStore(m)
			for _, id := range ids {
				dir, rest := id.Shard()
				m.Mkdir(path.Join(objs, dir), 0o777)
				f, err := m.Create(path.Join(objs, dir, rest), 0o444)
				if err != nil {
					t.Fatal(err)
				}
				f.Close() // empty
			}
			var asked [][]object.ID
			opts := Options{Workers: 2}
			if tc.keep {
				opts.Keep = &Keep{}
			}
			if !tc.noHeal {
				opts.Heal = func(got []object.ID) error {
					asked = append(asked, got)
					if tc.healErr != nil {
						return tc.healErr
					}
					tx := batch.New(m, objs, batch.Options{Method: batch.Batch}).Begin()
					for i, id := range ids {
						if err := store.Write(tx, id, object.Blob, bases[i]); err != nil {
							return err
						}
					}
					return tx.End()
				}
			}
			_, err := Run(context.Background(), bytes.NewReader(p), store, policy, opts)
			if !tc.noHeal && (len(asked) != 1 || fmt.Sprint(asked[0]) != fmt.Sprint(ids)) {
				t.Errorf("Heal asked %v, want once %v", asked, ids)
			}
			var be *BaseError
			if tc.healErr != nil || tc.noHeal {
				if !errors.As(err, &be) {
					t.Fatalf("err %v, want a BaseError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range append(want, ids...) {
				if _, _, err := store.Read(id); err != nil {
					t.Errorf("%s: %v", id, err)
				}
			}
			for i, id := range ids {
				if _, data, _ := store.Read(id); !bytes.Equal(data, bases[i]) {
					t.Errorf("base %s reads %q", id, data)
				}
			}
		})
	}
}
