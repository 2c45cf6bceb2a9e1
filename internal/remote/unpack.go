package remote

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/progress"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// unpack writes the pack stream in into the repository through the
// project's unpacker, with the durability policy of the repository's
// settings (batch unless configured otherwise: a writeout per object, one
// flush after the last rename). When it returns, every object is durable.
// It reports whether the objects were verified to be connected, which is
// checked only when git asked for it.
func (h *helper) unpack(in io.Reader, wants []plumbing.Hash) (connected bool, err error) {
	r, err := h.repository()
	if err != nil {
		return false, err
	}
	set, err := r.Config.Settings(h.env.Getenv)
	if err != nil {
		return false, err
	}
	for _, w := range set.Warnings {
		fmt.Fprintf(h.errw, "warning: %s\n", w)
	}
	start := time.Now()
	store := loose.Open(batch.OS, r.ObjectDir, loose.Options{
		Format: r.Format, Compression: &set.Compression, Shared: set.Shared,
		Alternates: loose.SplitAlternates(h.env.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES")),
	})
	defer store.Close()
	policy := batch.New(batch.OS, r.ObjectDir, batch.Options{Method: set.Method, NoFlush: set.NoFlush})
	opts := unpack.Options{BigFileThreshold: set.BigFileThreshold, Messages: h.errw}
	var cl *closure
	if h.set.checkConn {
		cl = newClosure(r.Format)
		opts.Object = cl.add
	}
	var meter *progress.Meter
	if h.set.progress && h.set.verbosity > 0 {
		opts.Progress = func(done, total int, n int64) {
			if meter == nil {
				meter = progress.New(h.errw, "Unpacking objects", total, true)
			}
			meter.Update(done, n)
		}
	}
	res, err := unpack.Run(h.ctx, in, store, policy, opts)
	st := policy.Stats()
	h.account(res, st, store.Repaired(), time.Since(start), err)
	if err != nil {
		return false, &packError{err: err}
	}
	if meter != nil {
		meter.Done()
	}
	if cl == nil {
		return false, nil
	}
	ids := make([]object.ID, 0, len(wants))
	for _, w := range wants {
		id, _ := object.IDFromBytes(w[:])
		ids = append(ids, id)
	}
	return cl.connected(store, ids), nil
}

// packError is a failure of the pack the upstream sent (or of writing
// it); the unpacker's error says what.
type packError struct{ err error }

func (e *packError) Error() string { return e.err.Error() }

func (e *packError) Unwrap() error { return e.err }

// isPackError reports whether err came from the unpacker.
func isPackError(err error) (*packError, bool) {
	var pe *packError
	return pe, errors.As(err, &pe)
}
