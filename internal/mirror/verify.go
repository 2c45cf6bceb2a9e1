package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/mend"
	"github.com/git-durable/git-durable/internal/progress"
	"github.com/git-durable/git-durable/internal/quarantine"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/object"
)

// VerifyFlag is the argument that selects the verification in
// git-remote-durable: the runner's --verify.
const VerifyFlag = "--verify"

// verifyRefs checks the refs of the repository dir, which the runner
// holds by the lock f, before its objects, as an update's tidying does:
// stale locks, a torn packed-refs, broken loose refs, reftable tables git
// cannot read, each set aside (mend.Tidy). Where refs were lost so, they
// are fetched again from the upstream, whose they are (git remote update
// --prune through the helper), before the objects are verified.
func (o *options) verifyRefs(ctx context.Context, dir string, f *os.File, booted time.Time, r *result) error {
	t, err := o.tidy(dir, booted, r)
	if err != nil || t.TornLines == 0 && len(t.BrokenRefs) == 0 && len(t.TornTables) == 0 {
		return err
	}
	stats := filepath.Join(dir, statsName)
	err = o.fetch(ctx, dir, f, stats)
	if note := keepStats(stats, err); note != "" {
		r.notes = append(r.notes, note)
	}
	if err != nil {
		return fmt.Errorf("the refs set aside were not fetched again: %w", err)
	}
	r.tidied = append(r.tidied, "fetched the refs again")
	return nil
}

// verifyOne verifies the repository dir, which the runner holds by lock,
// into r, and mends what it finds broken (mend.Mend, in this process), or
// reclones it (recloneOne): a note of what it checked (and mended), or
// the failure that names what is left broken.
func (o *options) verifyOne(ctx context.Context, dir string, r *result) {
	git := inRepo(dir)
	vo := mend.VerifyOptions{Rate: o.rate, Reserve: cli.ReserveMemory}
	if o.terminal {
		vo.Progress = meter(o.stderr)
	}
	f, err := mend.Verify(ctx, git, vo)
	var m mend.Mended
	if err == nil {
		r.check = f
		if f.Sound() && !o.reclone {
			r.notes = append(r.notes, describe(f))
			writeVerdict(dir, f, m, 0, nil)
			return
		}
		// Where a mend would fetch everything, a reclone swapped in; in
		// place where that is refused with nothing touched.
		var notSwapped string
		if o.reclone || mend.WholeDue(f) {
			var done bool
			if done, notSwapped = o.recloneOne(ctx, dir, f, r); done {
				return
			}
		}
		start := time.Now()
		m, err = o.mendOne(ctx, dir, f)
		r.mended, r.mendTook = append([]string{describe(f)}, mendedWhat(m)...), time.Since(start)
		if notSwapped != "" {
			// First: a line too long is cut.
			why := "in place, not swapped: " + notSwapped
			r.mended, m.Did = append([]string{why}, r.mended...), append([]string{why}, m.Did...)
		}
		r.fixed = f.Broken() - len(m.Left) - len(m.Missing)
		r.refetched, r.whole = m.Fetched, m.Whole != ""
		if err == nil {
			err = leftBroken(m)
		}
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("timed out after %s", o.timeout)
	}
	if err != nil && f != nil {
		// One verdict: what was found, and why what is left is left; what
		// the mend did goes to the statistics file with the detail.
		err = fmt.Errorf("%v (%d of %d objects broken)", err, f.Broken(), f.Objects())
		r.mended = nil
	}
	r.err = err
	if f != nil {
		writeVerdict(dir, f, m, r.mendTook, err)
	}
}

// mendOne mends what f found in the repository dir, fetching from its
// first remote.
func (o *options) mendOne(ctx context.Context, dir string, f *mend.Findings) (mend.Mended, error) {
	rs, err := remotesOf(ctx, dir)
	if err != nil {
		return mend.Mended{}, err
	}
	return mend.Mend(ctx, inRepo(dir), f, o.mendOptions(dir, rs))
}

// mendOptions are those of the runner's mend (or reclone) of the
// repository dir: its first remote of remotes (git fetches from it), the
// statistics file, the repository's quarantine, the bound of an upstream
// that sends nothing.
func (o *options) mendOptions(dir string, remotes []remoteURL) mend.Options {
	url := ""
	if len(remotes) > 0 {
		url = remotes[0].url
	}
	return mend.Options{URL: url, Stats: statsTarget(), Quarantine: quarantine.For(dir), Idle: o.idle()}
}

// inRepo runs git in the repository dir as the runner does (gitIn).
func inRepo(dir string) mend.Git {
	return func(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
		return gitOut(ctx, dir, stdin, args...)
	}
}

// mendedWhat says what a mend did, a phrase each, and where what it set
// aside went.
func mendedWhat(m mend.Mended) []string {
	var did []string
	if m.Whole != "" {
		did = append(did, "fetched everything again, as a reclone does")
	}
	if m.Fetched > 0 {
		did = append(did, fmt.Sprintf("fetched %d %s again", m.Fetched, plural(m.Fetched, "object", "objects")))
	}
	did = append(did, m.Did...)
	if len(m.Retired) > 0 {
		did = append(did, fmt.Sprintf("set aside %d %s in %s", len(m.Retired), plural(len(m.Retired), "file", "files"),
			quotePath(filepath.ToSlash(filepath.Join("durable-quarantine", filepath.Base(m.Quarantine))))))
	}
	return did
}

// leftBroken says what a mend left broken, as an error; nil where nothing.
func leftBroken(m mend.Mended) error {
	var s []string
	switch {
	case len(m.NotSent) > 0:
		s = append(s, fmt.Sprintf("the upstream did not send %d of the %d broken objects (%s): they are left as they are",
			len(m.NotSent), m.Asked, describeIDs(m.NotSent)))
	case len(m.Left) > 0:
		s = append(s, fmt.Sprintf("%d %s still broken (%s)", len(m.Left), plural(len(m.Left), "object is", "objects are"), describeIDs(m.Left)))
	}
	for _, r := range m.Missing {
		s = append(s, fmt.Sprintf("%s: its object %s is still missing", r.Name, r.ID))
	}
	if len(s) == 0 {
		return nil
	}
	return errors.New(strings.Join(s, "; "))
}

// parseRate reads a rate of --rate: bytes a second, with git's k, m or g
// suffix for KiB, MiB or GiB.
func parseRate(v string) (int64, error) {
	n, err := repo.ParseInt(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid rate '%s' (bytes a second, with k, m or g)", v)
	}
	return n, nil
}

// meter draws git's progress lines of a verification's stages on w.
func meter(w io.Writer) func(stage string, done, total int64) {
	var mu sync.Mutex
	var m *progress.Meter
	var at string
	return func(stage string, done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if stage != at {
			m.Done()
			m, at = progress.New(w, stage, int(total), false), stage
		}
		m.Update(int(done), 0)
	}
}

// describe says what the verification f found, for the runner's line:
// counts, and the first thing wrong (the rest is in the statistics file,
// writeVerdict).
func describe(f *mend.Findings) string {
	what := fmt.Sprintf("%d packed %s in %d %s, %d loose", f.PackedObjects, plural(f.PackedObjects, "object", "objects"),
		f.Packs, plural(f.Packs, "pack", "packs"), f.LooseObjects)
	if f.Sound() {
		return "verified " + what
	}
	first := ""
	switch {
	case len(f.Damage) > 0:
		d := f.Damage[0]
		for _, o := range f.Damage {
			if o.Own {
				d = o // a broken copy says more than its pack's checksum
				break
			}
		}
		where := "loose"
		if d.Pack != "" {
			where = filepath.Base(d.Pack)
		}
		first = where + ": " + d.Why
	case len(f.Missing) > 0:
		first = fmt.Sprintf("%s: its object %s is missing", f.Missing[0].Name, f.Missing[0].ID)
	}
	if n := len(f.Damage) + len(f.Missing); n > 1 {
		first += fmt.Sprintf("; and %d more", n-1)
	}
	return fmt.Sprintf("%d of %d objects broken (%s)", f.Broken(), f.Objects(), first)
}

// describeIDs names a few of ids.
func describeIDs(ids []object.ID) string {
	var s []string
	for i, id := range ids {
		if i == 3 {
			s = append(s, fmt.Sprintf("and %d more", len(ids)-i))
			break
		}
		s = append(s, id.String())
	}
	return strings.Join(s, ", ")
}

// maxIdle is the longest a mend waits for an upstream that sends nothing.
const maxIdle = 2 * time.Minute

// idle is how long a mend waits for an upstream that sends nothing: a
// quarter of --timeout, at most maxIdle. Well under the time limit of the
// repository's run, so that the line still says what was found broken,
// and a stalled upstream does not hold a run of -j 1 for long; long
// enough for an upstream's walk before its first byte (upload-pack
// counting a large history).
func (o *options) idle() time.Duration { return min(maxIdle, o.timeout/4) }
