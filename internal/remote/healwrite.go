package remote

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// healChunk is how many objects one heal request asks for: the unpack
// limit of the repository (git's default where it keeps every pack), so
// that no answer is written as more loose objects than git would explode
// from one.
func healChunk(limit uint32) int {
	if limit == 0 {
		return repo.DefaultUnpackLimit
	}
	return int(limit)
}

// writeAsked writes, of the answer p to a request for ids, the objects
// asked for and nothing else. The whole answer is first exploded, checked
// as any fetch's objects are (fetch.fsckObjects), into a scratch directory
// under objects/ that is never synced and always removed: an upstream that
// cannot filter sends a tree with what it holds, and any upstream can send
// more than it was asked for, objects that may be the bases of the ones
// asked. Then each asked object that came is written into the repository
// under one batch (a writeout each, one flush after the last), replacing a
// broken copy; the others are dropped, and said. It returns the stats of
// the batch; an error of the unpack is accounted already (runErr).
func (h *helper) writeAsked(p io.Reader, ids []object.ID) (objstore.Stats, error) {
	r, err := h.repository()
	if err != nil {
		return objstore.Stats{}, err
	}
	_, strict, err := h.checks(r)
	if err != nil {
		return objstore.Stats{}, err
	}
	run, err := h.begin(r)
	if err != nil {
		return objstore.Stats{}, err
	}
	defer run.End()
	scratch, err := os.MkdirTemp(r.ObjectDir, "tmp_objdir-heal-")
	if err != nil {
		return objstore.Stats{}, err
	}
	defer os.RemoveAll(scratch)
	// The repository's objects are bases for what the answer sends as
	// deltas on them; not where its packs are damaged (a repair): the
	// scratch store would take their copies for good and skip the objects.
	var alts []string
	if h.repair == nil {
		alts = append([]string{r.ObjectDir}, loose.SplitAlternates(h.env.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES"))...)
	}
	all := loose.Open(batch.OS, scratch, loose.Options{Format: r.Format, Alternates: alts})
	defer all.Close()
	opts := run.Options(maskWriter{h.errw}, nil)
	opts.Strict = strict
	var extra atomic.Int64
	opts.Object = countUnasked(ids, &extra)
	scratchPolicy := batch.New(batch.OS, scratch, batch.Options{Method: batch.None})
	if h.repair != nil {
		// A repair's answer is kept whole in the scratch directory: no
		// loose file per object, and where it holds only what was asked
		// it is published as it came (packAnswer); the links its trees
		// name order what is asked for next.
		opts.Keep, opts.PackPolicy = &unpack.Keep{Compression: run.Settings.PackCompression}, scratchPolicy
		opts.Object = h.noteLinks(r.Format, opts.Object)
	}
	res, err := unpack.Run(h.ctx, p, all, scratchPolicy, opts)
	if err = h.runErr(p, run, res, err); err != nil {
		return objstore.Stats{}, err
	}
	res.Existing = 0
	if res.Written, err = h.keepAsked(scratch, r.Format, run, ids); err != nil {
		return objstore.Stats{}, err
	}
	if n := extra.Load(); n > 0 {
		fmt.Fprintf(h.errw, "warning: '%s' sent %d %s not asked for with the broken ones; %s dropped\n",
			h.url, n, plural(n, "object", "objects"), plural(n, "it was", "they were"))
	}
	return run.Stats(res), nil
}

// countUnasked returns an unpack's Object callback that counts in n the
// objects that are not of ids.
func countUnasked(ids []object.ID, n *atomic.Int64) func(object.ID, object.Type, []byte) {
	want := make(map[object.ID]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	return func(id object.ID, _ object.Type, _ []byte) {
		if !want[id] {
			n.Add(1)
		}
	}
}

// keepAsked writes what of ids the answer brought into scratch into the
// repository: as one pack where a repair asked (the pack's path noted
// for Refetch), else as loose objects. It returns how many
// it wrote.
func (h *helper) keepAsked(scratch string, f object.Format, run *objstore.Run, ids []object.ID) (int, error) {
	came := loose.Open(batch.OS, scratch, loose.Options{Format: f})
	defer came.Close()
	if h.repair == nil {
		return copyAsked(came, run, ids)
	}
	path, n, err := packAnswer(scratch, run, ids)
	if path == "" && err == nil {
		path, n, err = packAsked(came, run, ids)
	}
	if path != "" {
		h.repair.packs = append(h.repair.packs, path)
	}
	return n, err
}

// copyAsked writes each of ids that the store came holds into the run's
// store, where it is missing or broken there, under one batch of the run's
// policy (a writeout each, one flush after the last), and returns how many
// it wrote.
func copyAsked(came *loose.Store, run *objstore.Run, ids []object.ID) (int, error) {
	written := 0
	tx := run.Policy.Begin()
	for _, id := range ids {
		typ, data, err := came.Read(id)
		if errors.Is(err, loose.ErrNotFound) {
			continue // not sent, or a good copy is here already
		}
		if err == nil {
			var need bool
			if need, err = run.Store.Need(id); need && err == nil {
				err = run.Store.Write(tx, id, typ, data)
				written++
			}
		}
		if err != nil {
			tx.End()
			return written, err
		}
	}
	return written, tx.End()
}

// plural is one or many, by n.
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
