package unpack

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

const objs = "/repo/objects"

func newStore(m *memfstest.FS) (*loose.Store, *batch.Policy) {
	return loose.Open(m, objs, loose.Options{}), batch.New(m, objs, batch.Options{Method: batch.Batch})
}

// chainPack builds n blobs, each a delta of the one before, alternating OFS
// and REF deltas, some REF deltas placed before their base; it returns the
// pack and every blob's content.
func chainPack(n int) ([]byte, [][]byte) {
	b := &packtest.Builder{}
	contents := [][]byte{[]byte("line 0\n")}
	b.Object(object.Blob, contents[0])
	for i := 1; i < n; i++ {
		prev := contents[i-1]
		next := append(append([]byte{}, prev...), fmt.Sprintf("line %d\n", i)...)
		contents = append(contents, next)
		d := (&packtest.Delta{}).Copy(0, uint32(len(prev))).Insert(next[len(prev):]).Bytes(uint64(len(prev)), uint64(len(next)))
		if i%2 == 1 {
			b.OfsDelta(i-1, d)
		} else {
			id, _ := object.SHA1.Sum(object.Blob, prev)
			b.RefDelta(id, d)
		}
	}
	return b.Pack(), contents
}

func TestRunResolvesEveryKindOfDelta(t *testing.T) {
	for _, workers := range []int{1, 2, 8} {
		m := memfstest.New(objs)
		store, policy := newStore(m)
		p, contents := chainPack(300)
		// A REF delta before its base, and a duplicate object.
		b := &packtest.Builder{}
		late := []byte("a base that comes later\n")
		lateID, _ := object.SHA1.Sum(object.Blob, late)
		b.RefDelta(lateID, (&packtest.Delta{}).Copy(0, 5).Bytes(uint64(len(late)), 5))
		b.Object(object.Blob, late)
		b.Object(object.Blob, late)
		res, err := Run(context.Background(), bytes.NewReader(append(p, b.Pack()...)), store, policy, Options{Workers: workers})
		if err != nil {
			t.Fatalf("workers %d: %v", workers, err)
		}
		if res.Written != 300 || res.Objects != 300 {
			t.Errorf("workers %d: %+v", workers, res)
		}
		for _, c := range contents {
			id, _ := object.SHA1.Sum(object.Blob, c)
			typ, data, err := store.Read(id)
			if err != nil || typ != object.Blob || !bytes.Equal(data, c) {
				t.Fatalf("workers %d: %v: %v", workers, id, err)
			}
		}
		if !bytes.Equal(res.Rest, b.Pack()) {
			t.Errorf("rest: %d bytes", len(res.Rest))
		}
		// The second pack, now alone.
		res, err = Run(context.Background(), bytes.NewReader(b.Pack()), store, policy, Options{Workers: workers})
		if err != nil || res.Written != 2 || res.Existing != 0 {
			t.Errorf("workers %d: second pack %+v %v", workers, res, err)
		}
	}
}

// TestWorkCounted: Result.Work counts each entry of the stream inflated
// once and each delta applied once when every base stays in the cache,
// and what is read back beyond that.
func TestWorkCounted(t *testing.T) {
	p, _ := chainPack(300)
	for _, keep := range []bool{false, true} {
		m := memfstest.New(objs, objs+"/pack")
		store, policy := newStore(m)
		opts := Options{Workers: 2}
		if keep {
			opts.Keep = &Keep{}
		}
		res, err := Run(context.Background(), bytes.NewReader(p), store, policy, opts)
		if err != nil {
			t.Fatal(err)
		}
		if want := (Work{Inflated: 300, Patched: 299}); res.Work != want {
			t.Errorf("keep=%v: %+v, want %+v", keep, res.Work, want)
		}
	}
}

// TestSmallCacheRereadsBases forces every base out of the cache so that it
// is read back from the store.
func TestSmallCacheRereadsBases(t *testing.T) {
	m := memfstest.New(objs)
	store, policy := newStore(m)
	b := &packtest.Builder{}
	var base []byte // 64 KiB without repeats, above a quarter of the cache
	for i := 0; len(base) < 64<<10; i++ {
		base = fmt.Appendf(base, "%08d", i)
	}
	b.Object(object.Blob, base)
	for i := 0; i < 50; i++ {
		b.Object(object.Blob, []byte(fmt.Sprintf("filler %d", i)))
		b.OfsDelta(0, (&packtest.Delta{}).Copy(uint32(i*1000), 100).Bytes(uint64(len(base)), 100))
	}
	res, err := Run(context.Background(), bytes.NewReader(b.Pack()), store, policy, Options{CacheSize: 64 << 10})
	if err != nil || res.Written != 101 {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestRunErrors(t *testing.T) {
	base := []byte("some base\n")
	tests := []struct {
		name     string
		build    func(b *packtest.Builder)
		want     error
		truncate bool
	}{
		{"truncated", func(b *packtest.Builder) {
			b.Object(object.Blob, bytes.Repeat(base, 10))
		}, io.ErrUnexpectedEOF, true},
		{"missing base", func(b *packtest.Builder) {
			id, _ := object.SHA1.Sum(object.Blob, []byte("not in the pack"))
			b.RefDelta(id, (&packtest.Delta{}).Bytes(1, 0))
		}, ErrUnresolved, false},
		{"bad delta", func(b *packtest.Builder) {
			b.Object(object.Blob, base)
			b.OfsDelta(0, (&packtest.Delta{}).Copy(0, 100).Bytes(uint64(len(base)), 100))
		}, pack.ErrDeltaCorrupt, false},
	}
	for _, tt := range tests {
		m := memfstest.New(objs)
		store, policy := newStore(m)
		b := &packtest.Builder{}
		tt.build(b)
		p := b.Pack()
		if tt.truncate {
			p = p[:len(p)-30]
		}
		_, err := Run(context.Background(), bytes.NewReader(p), store, policy, Options{})
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		lines, _ := Describe(err)
		if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1].String(), "fatal: ") {
			t.Errorf("%s: described as %q", tt.name, lines)
		}
	}
}

func TestRecoverGoesOn(t *testing.T) {
	m := memfstest.New(objs)
	store, policy := newStore(m)
	b := &packtest.Builder{}
	b.Raw(object.Blob, 10, nil, packtest.Deflate([]byte("abc"))) // data ends early
	b.Object(object.Blob, []byte("fine\n"))
	var msgs bytes.Buffer
	res, err := Run(context.Background(), bytes.NewReader(b.Pack()), store, policy, Options{Recover: true, Messages: &msgs})
	if !errors.Is(err, ErrRecovered) || res.Written != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	if msgs.String() != "error: inflate returned 1\n" {
		t.Errorf("messages %q", msgs.String())
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	m := memfstest.New(objs)
	store, policy := newStore(m)
	p, _ := chainPack(20)
	res, err := Run(context.Background(), bytes.NewReader(p), store, policy, Options{DryRun: true})
	if err != nil || res.Objects != 20 {
		t.Fatalf("%+v %v", res, err)
	}
	if evs := m.Events(); len(evs) != 0 {
		t.Errorf("dry run wrote: %v", evs[0])
	}
}

func TestCanceled(t *testing.T) {
	m := memfstest.New(objs)
	store, policy := newStore(m)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, _ := chainPack(20)
	if _, err := Run(ctx, bytes.NewReader(p), store, policy, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v", err)
	}
}

func TestBudget(t *testing.T) {
	b := newBudget(10)
	b.acquire(100) // larger than the budget: admitted alone
	done := make(chan bool)
	go func() { b.acquire(1); done <- true }()
	select {
	case <-done:
		t.Fatal("admitted past a full budget")
	default:
	}
	b.release(100)
	<-done
}

// TestLongChainBeforeItsBase resolves a chain of 8,000 REF deltas that
// all come before the one full object, each waiting for the one before:
// with a 1 MiB goroutine stack, so that resolving by recursion would die.
func TestLongChainBeforeItsBase(t *testing.T) {
	const n = 8000
	contents := [][]byte{[]byte("chain 0\n")}
	var deltas [][]byte
	for i := 1; i <= n; i++ {
		prev := contents[i-1]
		next := fmt.Appendf(nil, "chain %d\n", i)
		contents = append(contents, next)
		deltas = append(deltas, (&packtest.Delta{}).Insert(next).Bytes(uint64(len(prev)), uint64(len(next))))
	}
	b := &packtest.Builder{}
	for i := n; i >= 1; i-- {
		id, _ := object.SHA1.Sum(object.Blob, contents[i-1])
		b.RefDelta(id, deltas[i-1])
	}
	b.Object(object.Blob, contents[0])
	defer debug.SetMaxStack(debug.SetMaxStack(1 << 20))
	m := memfstest.New(objs)
	store, policy := newStore(m)
	res, err := Run(context.Background(), bytes.NewReader(b.Pack()), store, policy, Options{})
	if err != nil || res.Written != n+1 {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestStreamedBlobEndsEarly is a big blob whose zlib stream ends before the
// size its header declares. Exploded, the store reports it in git's words
// (loose.StreamError); kept, the pack reader's own error stands: zlib's
// Z_STREAM_END, which -r may skip.
func TestStreamedBlobEndsEarly(t *testing.T) {
	b := &packtest.Builder{}
	b.Raw(object.Blob, 64, nil, packtest.Deflate(bytes.Repeat([]byte("x"), 32)))
	p := b.Pack()
	for _, keep := range []bool{false, true} {
		m := memfstest.New(objs)
		store, policy := newStore(m)
		opts := Options{BigFileThreshold: 16}
		if keep {
			opts.Keep = &Keep{}
		}
		_, err := Run(context.Background(), bytes.NewReader(p), store, policy, opts)
		var se *loose.StreamError
		var ie *pack.InflateError
		switch {
		case !keep && !errors.As(err, &se):
			t.Errorf("exploded: %v, want a *loose.StreamError", err)
		case keep && (!errors.As(err, &ie) || ie.Code != 1 || !pack.Recoverable(err)):
			t.Errorf("kept: %v, want a recoverable *pack.InflateError with code 1", err)
		}
	}
}
