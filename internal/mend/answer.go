package mend

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/internal/unpack"
	"github.com/git-durable/git-durable/internal/upstream"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// writeAsked writes, of the answer p to a request for ids, the objects
// asked for and nothing else. The whole answer is first unpacked, checked
// as any fetch's objects are (Strict), into a scratch directory under
// objects/ that is never synced and always removed: an upstream that
// cannot filter sends a tree with what it holds, and any upstream can send
// more than it was asked for, objects that may be the bases of the ones
// asked. Then each asked object that came is written into the repository
// (keepAsked); the others are dropped, and said. It returns the stats of
// the run; an error of the unpack goes through Finish.
func (f *Fetcher) writeAsked(p io.Reader, ids []object.ID) (objstore.Stats, error) {
	r := f.Store.Repo
	run := f.Store.Begin()
	defer run.End()
	scratch, err := os.MkdirTemp(r.ObjectDir, "tmp_objdir-heal-")
	if err != nil {
		return objstore.Stats{}, err
	}
	defer os.RemoveAll(scratch)
	// The repository's objects are bases for what the answer sends as
	// deltas on them (a thin pack against the haves); not for a mend of
	// broken copies (its packs are damaged): the scratch store would take
	// their copies for good and skip the objects.
	var alts []string
	if !f.Packs || len(f.Haves) > 0 {
		alts = append([]string{r.ObjectDir}, f.Alternates...)
	}
	all := loose.Open(batch.OS, scratch, loose.Options{Format: r.Format, Alternates: alts})
	defer all.Close()
	opts := run.Options(mask.Writer{W: f.Messages}, nil)
	opts.Strict = f.Strict
	var extra atomic.Int64
	opts.Object = countUnasked(ids, &extra)
	scratchPolicy := batch.New(batch.OS, scratch, batch.Options{Method: batch.None})
	if f.Packs {
		// A mend's answer is kept whole in the scratch directory: no
		// loose file per object, and where it holds only what was asked
		// it is published as it came (packAnswer); the links its trees
		// name order what is asked for next.
		opts.Keep, opts.PackPolicy = &unpack.Keep{Compression: run.Settings.PackCompression}, scratchPolicy
		opts.Object = f.noteLinks(r.Format, opts.Object)
	}
	res, err := unpack.Run(f.Ctx, f.reader(p), all, scratchPolicy, opts)
	switch {
	case f.Finish != nil:
		err = f.Finish(p, run, res, err)
	case err == nil && len(res.Rest) > 0:
		err = upstream.ErrJunk
	}
	if err != nil {
		return objstore.Stats{}, err
	}
	res.Existing = 0
	if res.Written, err = f.keepAsked(scratch, run, ids); err != nil {
		return objstore.Stats{}, err
	}
	if n := extra.Load(); n > 0 && len(f.Haves) == 0 {
		fmt.Fprintf(f.Messages, "warning: '%s' sent %d %s not asked for with the broken ones; %s dropped\n",
			f.URL, n, plural(int(n), "object", "objects"), plural(int(n), "it was", "they were"))
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
// repository: as one pack for a mend (its path noted), else as loose
// objects. It returns how many it wrote.
func (f *Fetcher) keepAsked(scratch string, run *objstore.Run, ids []object.ID) (int, error) {
	came := loose.Open(batch.OS, scratch, loose.Options{Format: f.Store.Repo.Format})
	defer came.Close()
	if !f.Packs {
		return copyAsked(came, run, ids)
	}
	path, n, err := packAnswer(scratch, run, ids, len(f.Haves) > 0)
	if path == "" && err == nil {
		path, n, err = packAsked(came, run, ids)
	}
	if path != "" {
		f.packs = append(f.packs, path)
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
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
