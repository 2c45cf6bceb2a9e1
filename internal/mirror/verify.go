package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-durable/git-durable/internal/cli"
	"github.com/git-durable/git-durable/internal/progress"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/verify"
	"github.com/git-durable/git-durable/object"
)

// VerifyFlag is the argument that selects the verification in
// git-remote-durable: the runner's --verify.
const VerifyFlag = "--verify"

// checked is what the verification of one repository found.
type checked struct {
	report  *verify.Report
	missing []refObject // refs whose object is not there
}

// refObject is a ref and the object it names.
type refObject struct {
	name string
	id   object.ID
}

// broken is how many objects the verification found broken or missing.
func (c *checked) broken() int { return len(c.report.Broken()) + len(c.missing) }

// objects is how many objects the verification read.
func (c *checked) objects() int { return c.report.PackedObjects + c.report.LooseObjects }

// verifyOne verifies the repository dir, which the runner holds by lock,
// into r, and mends what it finds broken: a note of what it checked (and
// repaired), or the failure that names what is left broken.
func (o *options) verifyOne(ctx context.Context, dir string, lock *os.File, r *result) {
	c, err := o.verifyRepo(ctx, dir, o.stderr, o.terminal)
	if err == nil {
		r.check = c
		if c.broken() == 0 && len(c.report.Damage) == 0 {
			r.notes = append(r.notes, c.describe())
			return
		}
		var did []string
		start := time.Now()
		did, err = o.mend(ctx, dir, c, lock)
		if len(did) > 0 {
			r.repaired = append(append([]string{c.describe()}, did...), fmt.Sprintf("the repair took %.1fs", time.Since(start).Seconds()))
		}
		if err == nil {
			r.fixed = c.broken()
		} else {
			err = fmt.Errorf("%s; %v", c.describe(), err)
		}
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		r.err = fmt.Errorf("timed out after %s", o.timeout)
	case err != nil:
		r.err = err
	}
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

// verifyRepo checks the repository dir, which the runner holds: its objects
// (verify.Repository) and that every ref's object is there.
func (o *options) verifyRepo(ctx context.Context, dir string, stderr io.Writer, terminal bool) (*checked, error) {
	out, err := gitOut(ctx, dir, nil, "rev-parse", "--git-path", "objects", "--show-object-format")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("unexpected output of git rev-parse: %q", out)
	}
	objects := lines[0]
	if !filepath.IsAbs(objects) {
		objects = filepath.Join(workTop(dir), objects)
	}
	format, err := object.ParseFormat(lines[1])
	if err != nil {
		return nil, err
	}
	opts := verify.Options{Rate: o.rate, Reserve: cli.ReserveMemory}
	if terminal {
		opts.Progress = meter(stderr)
	}
	rep, err := verify.Repository(ctx, objects, format, opts)
	if err != nil {
		return nil, err
	}
	c := &checked{report: rep}
	c.missing, err = missingRefObjects(ctx, dir)
	return c, err
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

// missingRefObjects lists the refs of the repository dir whose object it
// does not have.
func missingRefObjects(ctx context.Context, dir string) ([]refObject, error) {
	out, err := gitOut(ctx, dir, nil, "for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil || len(out) == 0 {
		return nil, err
	}
	var refs []refObject
	var ids bytes.Buffer
	for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		hex, name, _ := strings.Cut(l, " ")
		id, err := object.ParseID(hex)
		if err != nil {
			return nil, fmt.Errorf("ref %s: %v", name, err)
		}
		refs = append(refs, refObject{name, id})
		ids.WriteString(hex + "\n")
	}
	check, err := gitOut(ctx, dir, ids.Bytes(), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	var missing []refObject
	for i, l := range strings.Split(strings.TrimSuffix(string(check), "\n"), "\n") {
		if i < len(refs) && strings.HasSuffix(l, " missing") {
			missing = append(missing, refs[i])
		}
	}
	return missing, nil
}

// describe says what the verification found, for the runner's line.
func (c *checked) describe() string {
	r := c.report
	what := fmt.Sprintf("%d packed %s in %d %s, %d loose", r.PackedObjects, plural(r.PackedObjects, "object", "objects"),
		r.Packs, plural(r.Packs, "pack", "packs"), r.LooseObjects)
	var bad []string
	for _, d := range r.Damage {
		where := "loose"
		if d.Pack != "" {
			where = filepath.Base(d.Pack)
		}
		bad = append(bad, where+": "+d.Why)
	}
	for _, m := range c.missing {
		bad = append(bad, fmt.Sprintf("%s: its object %s is missing", m.name, m.id))
	}
	if len(bad) == 0 {
		return "verified " + what
	}
	const most = 5
	more := ""
	if len(bad) > most {
		more = "; and " + strconv.Itoa(len(bad)-most) + " more"
		bad = bad[:most]
	}
	return fmt.Sprintf("%d broken of %s: %s%s", c.broken(), what, strings.Join(bad, "; "), more)
}
