package unpack_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/crashtest"
	"github.com/git-durable/git-durable/internal/memfstest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// objDir is the objects directory of the in-memory repository.
const objDir = "/repo/objects"

// memRun is one unpack into an in-memory repository.
type memRun struct {
	m        *memfstest.FS
	policy   *batch.Policy
	setup    int      // memfs events recorded before the run
	reported []string // final names of the objects the run reported
	res      unpack.Result
	err      error
}

// runConfig says how to run an unpack in memory.
type runConfig struct {
	method  batch.Method
	kind    string // filesystem kind; "" is ext4
	workers int
	// before writes objects into the repository before the run.
	before [][]byte
	// broken leaves, for each blob, a file under its name that is no
	// object: what a crash of a run without syncs leaves behind.
	broken [][]byte
	// wrap, when set, stands between the store and memfs (a mutant).
	wrap func(batch.FS) batch.FS
	// fail is installed as memfstest.Fail once the repository is set up; its
	// index counts the run's operations from 0.
	fail func(i int, ev memfstest.Event) error
	// keep keeps the pack instead of loose objects; with promisor, as a
	// promisor pack whose .promisor holds promisorText.
	keep, promisor bool
	promisorText   string
}

// objPath returns the final name of id in the in-memory repository.
func objPath(id object.ID) string {
	d, rest := id.Shard()
	return filepath.Join(objDir, d, rest)
}

// unpackMem unpacks pack into a new in-memory repository.
func unpackMem(t testing.TB, pack []byte, cfg runConfig) *memRun {
	t.Helper()
	m := memfstest.New(objDir)
	if cfg.kind != "" {
		m.FSKind = batch.KindOf(cfg.kind)
	}
	if len(cfg.before) > 0 {
		s := loose.Open(m, objDir, loose.Options{})
		tx := batch.New(m, objDir, batch.Options{Method: batch.Fsync}).Begin()
		for _, data := range cfg.before {
			id, _ := object.SHA1.Sum(object.Blob, data)
			if err := s.Write(tx, id, object.Blob, data); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.End(); err != nil {
			t.Fatal(err)
		}
	}
	for _, data := range cfg.broken {
		id, _ := object.SHA1.Sum(object.Blob, data)
		p := objPath(id)
		m.Mkdir(filepath.Dir(p), 0o777)
		f, err := m.Create(p, 0o444)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(data[:len(data)/2])
		f.Close()
	}
	r := &memRun{m: m, setup: len(m.Events())}
	if cfg.fail != nil {
		m.Fail = func(i int, ev memfstest.Event) error { return cfg.fail(i-r.setup, ev) }
	}
	var fsys batch.FS = m
	if cfg.wrap != nil {
		fsys = cfg.wrap(m)
	}
	store := loose.Open(fsys, objDir, loose.Options{})
	defer store.Close()
	r.policy = batch.New(fsys, objDir, batch.Options{Method: cfg.method})
	var mu sync.Mutex
	opts := unpack.Options{Workers: cfg.workers, Object: func(id object.ID, _ object.Type, _ []byte) {
		mu.Lock()
		r.reported = append(r.reported, objPath(id))
		mu.Unlock()
	}}
	if cfg.keep {
		opts.Keep = &unpack.Keep{File: true, Message: "kept in memory", Promisor: cfg.promisor, PromisorText: cfg.promisorText}
	}
	r.res, r.err = unpack.Run(context.Background(), bytes.NewReader(pack), store, r.policy, opts)
	return r
}

// check runs the crash checker on the run: I-b in every state, and I-a
// for the objects in expect (nil: none).
func (r *memRun) check(t testing.TB, model crashtest.Model, expect []string) *crashtest.Report {
	t.Helper()
	evs := r.m.Events()
	opts := crashtest.Options{Model: model, Initial: crashtest.FromMemfs(evs[:r.setup]), Expect: expect}
	rep, err := crashtest.Check(crashtest.FromMemfs(evs[r.setup:]), opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// blobs returns n distinct small blobs.
func blobs(n int, tag string) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(fmt.Sprintf("%s blob %d\n%s", tag, i, bytes.Repeat([]byte{'a' + byte(i%26)}, i%200)))
	}
	return out
}

// deltaPack builds a pack of n objects: full blobs, OFS_DELTAs on the blob
// before them, and REF_DELTAs on an earlier blob, in turn.
func deltaPack(n int, tag string) []byte {
	b := &packtest.Builder{}
	var last int
	var lastData []byte
	var ids []object.ID
	all := blobs(n, tag)
	for i, data := range all {
		switch {
		case i%3 == 0 || lastData == nil:
			last, lastData = b.Object(object.Blob, data), data
			id, _ := object.SHA1.Sum(object.Blob, data)
			ids = append(ids, id)
		case i%3 == 1:
			b.OfsDelta(last, deltaTo(lastData, data))
		default:
			base := ids[len(ids)/2]
			b.RefDelta(base, deltaTo(all[3*(len(ids)/2)], data))
		}
	}
	return b.Pack()
}

// deltaTo is a delta from base to target, which start with the same byte:
// a copy of that byte, then the rest of target.
func deltaTo(base, target []byte) []byte {
	d := &packtest.Delta{}
	d.Copy(0, 1)
	return d.Insert(target[1:]).Bytes(uint64(len(base)), uint64(len(target)))
}
