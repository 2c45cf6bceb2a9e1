package objstore

import (
	"io"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/progress"
	"github.com/git-durable/git-durable/internal/unpack"
)

// Run is one write into a session's store — an unpack, the copy of what a
// heal fetched, a shallow file, the refs made durable — with policies of
// its own, so that what it synced, repaired and took is its own to report
// (Stats), apart from the session's other runs.
type Run struct {
	*Session
	Policy *batch.Policy // loose objects
	// PackPolicy publishes a kept pack: Policy itself where the settings
	// sync both alike.
	PackPolicy *batch.Policy

	start  time.Time
	meter  *progress.Meter // the stream's line
	deltas *progress.Meter // a kept pack's "Resolving deltas"
	base   int64           // the session's unclaimed repairs as the run began
}

// Begin begins a run of writes into t's store with the policies its
// settings ask for.
func (t *Session) Begin() *Run {
	dir := t.Repo.ObjectDir
	r := &Run{Session: t, Policy: t.Settings.Policy(batch.OS, dir), start: time.Now(), base: t.unclaimed()}
	r.PackPolicy = r.Policy
	if t.Settings.PackMethod != t.Settings.Method {
		r.PackPolicy = t.Settings.PackPolicy(batch.OS, dir)
	}
	return r
}

// unclaimed is how many broken objects the store repaired that no run
// that ended took as its own.
func (t *Session) unclaimed() int64 { return t.Store.Repaired() - t.claimed.Load() }

// Repaired is how many broken objects of the store the run repaired: the
// store's repairs since it began, but those of the runs that began and
// ended meanwhile (a heal's, within a fetch's unpack).
func (r *Run) Repaired() int64 { return r.unclaimed() - r.base }

// End ends the run, after its Stats: what it repaired is no longer
// counted by a run that began before it and goes on (the unpack of a
// fetch, around a heal's).
func (r *Run) End() {
	r.claimed.Add(r.Repaired())
	r.base = r.unclaimed()
}

// Options are the unpacker's options that follow from the settings:
// messages (git's error and warning lines) go to msgs; a kept pack, when
// keep is set, gets the settings' pack compression; the memory the run
// holds per object raises the process's soft memory limit, and so, as far
// as a ceiling, does the room a kept pack asks for.
func (r *Run) Options(msgs io.Writer, keep *unpack.Keep) unpack.Options {
	if keep != nil {
		keep.Compression = r.Settings.PackCompression
	}
	return unpack.Options{BigFileThreshold: r.Settings.BigFileThreshold, Messages: msgs, Keep: keep, PackPolicy: r.PackPolicy,
		Reserve: cli.ReserveMemory, ReserveRoom: cli.ReserveRoom}
}

// Progress returns the unpacker's progress callback: git's "Unpacking
// objects" line on w, drawn from the first call on.
func (r *Run) Progress(w io.Writer) func(done, total int, n int64) {
	return func(done, total int, n int64) {
		if r.meter == nil {
			r.meter = progress.New(w, "Unpacking objects", total, true)
		}
		r.meter.Update(done, n)
	}
}

// KeptProgress returns the progress callbacks of a pack that may be kept
// (unpack.Options.Receiving and Resolving): git index-pack's "Receiving
// objects" line, then its "Resolving deltas" line once the stream is read.
func (r *Run) KeptProgress(w io.Writer) (receiving func(done, total int, n int64), resolving func(done, total int)) {
	receiving = func(done, total int, n int64) {
		if r.meter == nil {
			r.meter = progress.New(w, "Receiving objects", total, true)
		}
		r.meter.Update(done, n)
	}
	resolving = func(done, total int) {
		if r.deltas == nil {
			r.Done() // the line of the stream, ", done."
			r.meter = nil
			r.deltas = progress.New(w, "Resolving deltas", total, false)
		}
		r.deltas.Update(done, 0)
	}
	return receiving, resolving
}

// Done ends the progress lines with git's ", done.", where drawn.
func (r *Run) Done() {
	if r.meter != nil {
		r.meter.Done()
	}
	if r.deltas != nil {
		r.deltas.Done()
	}
}
