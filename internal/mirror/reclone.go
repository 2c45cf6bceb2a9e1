package mirror

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/git-durable/git-durable/internal/mend"
)

// recloneOne replaces the repository dir, which the runner holds by lock
// and which the verification f read, with a fresh clone of its first
// remote swapped in (mend.Reclone), into r: the runner's lock is taken in
// the new repository before it takes the name, and held (r.hold) until
// the run of dir ends. Unless --reclone asked for it, a reclone refused
// with nothing touched (mend.NotSwapped) is left to a mend in place: done
// is false, and why says why.
func (o *options) recloneOne(ctx context.Context, dir string, f *mend.Findings, r *result) (done bool, why string) {
	start := time.Now()
	rs, err := remotesOf(ctx, dir)
	if err != nil {
		r.err = err
		return true, ""
	}
	hold := func(scratch string) error {
		lf, busy, err := takeLock(scratch)
		if busy {
			err = errors.New("another run holds the new clone's lock")
		}
		if err == nil {
			r.hold = lf
		}
		return err
	}
	c, err := mend.Reclone(ctx, f, mend.RecloneOptions{Options: o.mendOptions(dir, rs), In: inRepo, Skip: []string{lockName}, Hold: hold})
	var refused *mend.NotSwapped
	if err != nil && !o.reclone && errors.As(err, &refused) {
		return false, refused.Error()
	}
	r.mendTook = time.Since(start)
	m := mend.Mended{Whole: "a fresh clone swapped in"}
	if err == nil {
		r.whole, r.swapped, r.fixed = true, true, f.Broken()
		m.Did = []string{fmt.Sprintf("fetched everything again: %d %s", c.Objects, plural(c.Objects, "object", "objects"))}
		if c.Carried > 0 {
			m.Did = append(m.Did, fmt.Sprintf("carried over %d %s the upstream did not send", c.Carried, plural(c.Carried, "object", "objects")))
		}
		m.Did = append(m.Did, "set the old repository aside in "+quotePath(c.Quarantine))
		r.mended = append([]string{describe(f)}, m.Did...)
	} else {
		r.swapped = c.Swapped
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("timed out after %s", o.timeout)
		}
		did := "not recloned"
		if c.Swapped {
			did = "recloned, then failed"
		}
		err = fmt.Errorf("%s: %v (%d of %d objects broken)", did, err, f.Broken(), f.Objects())
	}
	if c.Quarantine != "" {
		m.Retired, m.Quarantine = []string{c.Quarantine}, filepath.Join(dir, c.Quarantine)
	}
	r.err = err
	writeVerdict(dir, f, m, r.mendTook, err)
	return true, ""
}

// release lets go of the lock a reclone took in the repository it
// swapped in (recloneOne), if any.
func (r *result) release() {
	if r.hold != nil {
		r.hold.Close()
		r.hold = nil
	}
}
