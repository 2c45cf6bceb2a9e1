package mend

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/fsck"
	"github.com/git-durable/git-durable/internal/objstore"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// packAnswer publishes a mend's answer, kept whole in scratch, as it
// came, where it is one pack of which every object was asked for (ids), or
// with all, any one pack (an answer to haves: what the repository lacks):
// its files, which the unpack checked object by object, are copied into
// temporary files of the run's store and published as a kept pack is
// (written out, renamed, one flush after the last). It returns the pack's
// path and how many objects it holds, or "" where the answer is not such
// a pack (then packAsked writes the asked objects anew).
func packAnswer(scratch string, run *objstore.Run, ids []object.ID, all bool) (string, int, error) {
	idxs, _ := filepath.Glob(filepath.Join(scratch, "pack", "pack-*.idx"))
	if len(idxs) != 1 {
		return "", 0, nil
	}
	data, err := os.ReadFile(idxs[0])
	if err != nil {
		return "", 0, err
	}
	idx, err := pack.ParseIndex(data, run.Repo.Format)
	if err != nil {
		return "", 0, err
	}
	asked := make(map[object.ID]bool, len(ids))
	for _, id := range ids {
		asked[id] = true
	}
	for i := range idx.Count() {
		if !asked[idx.ID(i)] && !all {
			return "", 0, nil
		}
	}
	sum := idx.PackChecksum()
	base := idxs[0][:len(idxs[0])-len(".idx")]
	tx := run.PackPolicy.Begin()
	var files []loose.PackFile
	for _, ext := range []string{"pack", "rev", "idx"} {
		f, err := copyPackFile(run, tx, base+"."+ext, ext)
		if f != nil {
			files = append(files, loose.PackFile{Ext: ext, File: f})
		}
		if err != nil {
			return "", 0, publish(run, tx, sum, files, err)
		}
	}
	if err := publish(run, tx, sum, files, nil); err != nil {
		return "", 0, err
	}
	return run.Store.PackPath(sum, "pack"), idx.Count(), nil
}

// publish publishes the pack files through tx, and ends it; where err
// (what writing them failed with) is set, it removes them instead and
// returns err.
func publish(run *objstore.Run, tx *batch.Transaction, sum []byte, files []loose.PackFile, err error) error {
	if err != nil {
		for _, pf := range files {
			pf.File.Close()
			run.Store.FS().Remove(pf.File.Name())
		}
		return err
	}
	if _, err := run.Store.PublishPack(tx, sum, files); err != nil {
		return err
	}
	return tx.End()
}

// copyPackFile copies the file at path into a temporary file of the run's
// store for the pack's file ext, and returns it (nil where there is no
// such file and ext is optional: .rev).
func copyPackFile(run *objstore.Run, tx *batch.Transaction, path, ext string) (batch.File, error) {
	src, err := os.Open(path)
	if err != nil {
		if ext == "rev" && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer src.Close()
	f, err := run.Store.CreatePackTemp(tx, ext)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(f, src)
	return f, err
}

// packAsked writes each of ids that the store came holds into one pack of
// the run's store, whole objects (pack.WriteWhole), published as a kept
// pack is: its files written out, renamed, one flush after the last. It
// returns the pack's path ("" where none came) and how many objects it
// holds. A mend writes so: one file and one flush for
// thousands of objects, which git then reads where a damaged pack's copy
// fails.
func packAsked(came *loose.Store, run *objstore.Run, ids []object.ID) (string, int, error) {
	var got []object.ID
	for _, id := range ids {
		if ok, err := came.Has(id); err != nil {
			return "", 0, err
		} else if ok {
			got = append(got, id)
		}
	}
	if len(got) == 0 {
		return "", 0, nil
	}
	tx := run.PackPolicy.Begin()
	f, err := run.Store.CreatePackTemp(tx, "pack")
	if err != nil {
		return "", 0, err
	}
	files := []loose.PackFile{{Ext: "pack", File: f}}
	sum, entries, err := pack.WriteWhole(f, run.Repo.Format, len(got), func(i int) (pack.Base, error) {
		typ, data, err := came.Read(got[i])
		return pack.Base{ID: got[i], Type: typ, Data: data}, err
	}, run.Settings.PackCompression)
	if err == nil {
		var g batch.File
		if g, err = run.Store.CreatePackTemp(tx, "idx"); err == nil {
			files = append(files, loose.PackFile{Ext: "idx", File: g})
			pack.SortIndexEntries(entries)
			_, err = pack.WriteIndex(g, entries, sum, run.Repo.Format)
		}
	}
	if err = publish(run, tx, sum, files, err); err != nil {
		return "", 0, err
	}
	return run.Store.PackPath(sum, "pack"), len(got), nil
}

// noteLinks returns an unpack's Object callback that calls next, and
// notes in f.linked the type of every object that a tree or a commit of
// the answer names: to ask for what the answer left out in a better order
// (askOrder), learnt from what the unpack has in hand, not read again.
func (f *Fetcher) noteLinks(format object.Format, next func(object.ID, object.Type, []byte)) func(object.ID, object.Type, []byte) {
	if f.linked == nil {
		f.linked = map[object.ID]object.Type{}
	}
	var mu sync.Mutex
	return func(id object.ID, typ object.Type, data []byte) {
		next(id, typ, data)
		if data == nil || typ != object.Tree && typ != object.Commit {
			return
		}
		links, _ := fsck.AppendLinks(nil, typ, data, format)
		mu.Lock()
		defer mu.Unlock()
		for _, l := range links {
			f.linked[l.ID] = l.Type
		}
	}
}

// notFetched returns which of ids none of the packs a mend wrote holds:
// those packs hold, each object hashed by the unpack as it came, what the
// upstream sent of what was asked.
func (f *Fetcher) notFetched(ids []object.ID) (map[object.ID]bool, error) {
	var idxs []*pack.Index
	for _, p := range f.packs {
		x, err := readIndex(p, f.Store.Repo.Format)
		if err != nil {
			return nil, err
		}
		idxs = append(idxs, x)
	}
	bad := map[object.ID]bool{}
	for _, id := range ids {
		if !slices.ContainsFunc(idxs, func(x *pack.Index) bool { _, ok := x.FindOffset(id); return ok }) {
			bad[id] = true
		}
	}
	return bad, nil
}
