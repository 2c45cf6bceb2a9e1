package unpack

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/object"
)

// TestReserve checks that Options.Reserve is told of the memory held for
// the entries of a pack, in steps, as they arrive, and of the second
// pass's room if a delta is put off, and of all of it given back when Run
// returns, whether the pack is kept or exploded, and also after a failure;
// and that Options.ReserveRoom is told of the run's room, kept or
// exploded, and of its release.
func TestReserve(t *testing.T) {
	p, _ := chainPack(3*reserveEvery + 10)
	for _, tc := range []struct {
		name string
		keep bool
		pack []byte
	}{
		{"exploded", false, p}, {"kept", true, p},
		{"truncated", false, p[:len(p)/2]},
	} {
		var mu sync.Mutex
		var held, peak, asked, askedPeak int64
		opts := Options{Reserve: func(n int64) {
			mu.Lock()
			defer mu.Unlock()
			held += n
			peak = max(peak, held)
		}, ReserveRoom: func(n int64) {
			mu.Lock()
			defer mu.Unlock()
			asked += n
			askedPeak = max(askedPeak, asked)
		}}
		if tc.keep {
			opts.Keep = &Keep{}
		}
		store, policy := newStore(memfstest.New(objs))
		_, err := Run(context.Background(), bytes.NewReader(tc.pack), store, policy, opts)
		if (err != nil) != (tc.name == "truncated") {
			t.Errorf("%s: %v", tc.name, err)
		}
		// And the second pass's: kept, all its room if a delta was put
		// off; exploded, what their data holds, in steps.
		entries, room := 3*reserveEvery*perEntry(object.SHA1), int64(laterMax)
		later := peak == entries || tc.keep && peak == entries+room || !tc.keep && peak > entries && (peak-entries)%laterStep == 0
		if tc.name != "truncated" && !later {
			t.Errorf("%s: peak reserved %d bytes, want %d and the second pass's", tc.name, peak, entries)
		}
		if tc.name == "truncated" && peak == 0 {
			t.Errorf("%s: nothing reserved", tc.name)
		}
		if held != 0 {
			t.Errorf("%s: %d bytes still reserved after Run", tc.name, held)
		}
		// Room above what it holds, with the entries that arrived: all
		// of them, or some of a truncated pack's.
		want := int64(3 * reserveEvery * roomPerEntry)
		if tc.name == "truncated" && askedPeak > 0 && askedPeak < want && askedPeak%(reserveEvery*roomPerEntry) == 0 {
			want = askedPeak
		}
		if askedPeak != want || asked != 0 {
			t.Errorf("%s: room %d asked for, %d left after Run; want %d, 0", tc.name, askedPeak, asked, want)
		}
	}
}
