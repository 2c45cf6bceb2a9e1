package unpack

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// TestReaderLeadBounded holds the one worker inside the Object callback of
// a base while 20,000 deltas on that base follow it: the reader reads no
// more than about leadMax of them before the base is done (before, all of
// them, their data past parkMax dropped and read back later). Once let go,
// every object resolves, and no delta is read back.
func TestReaderLeadBounded(t *testing.T) {
	base := bytes.Repeat([]byte("the base every delta waits for\n"), 40)
	baseID, _ := object.SHA1.Sum(object.Blob, base)
	b := &packtest.Builder{}
	b.Object(object.Blob, base)
	const n = 20000
	for i := 0; i < n; i++ {
		ins := fmt.Appendf(bytes.Repeat([]byte{'.'}, 1000), "delta %d", i)
		b.OfsDelta(0, (&packtest.Delta{}).Copy(0, 64).Insert(ins).Bytes(uint64(len(base)), uint64(64+len(ins))))
	}
	for _, keep := range []bool{false, true} {
		var mu sync.Mutex
		read, held := 0, -1 // entries read; entries read when the base was let go
		opts := Options{Workers: 1, Progress: func(done, _ int, _ int64) {
			mu.Lock()
			read = done
			mu.Unlock()
		}, Object: func(id object.ID, _ object.Type, _ []byte) {
			if id != baseID {
				return
			}
			// Until the reader stops, or has read everything.
			last, since := -1, time.Now()
			for {
				time.Sleep(time.Millisecond)
				mu.Lock()
				r := read
				mu.Unlock()
				if r != last {
					last, since = r, time.Now()
				}
				if r == n+1 || time.Since(since) > 200*time.Millisecond {
					held = r
					return
				}
			}
		}}
		if keep {
			opts.Keep = &Keep{}
		}
		m := memfstest.New(objs, objs+"/pack")
		store, policy := newStore(m)
		res, err := Run(context.Background(), bytes.NewReader(b.Pack()), store, policy, opts)
		if err != nil || res.Objects != n+1 || res.Written != n+1 {
			t.Fatalf("keep=%v: %+v %v", keep, res, err)
		}
		if held < 0 || held > leadMax+64 {
			t.Errorf("keep=%v: %d entries read while the base was held", keep, held)
		}
		if res.Work.Inflated != n+1 || res.Work.Patched != n {
			t.Errorf("keep=%v: %+v", keep, res.Work)
		}
	}
}
