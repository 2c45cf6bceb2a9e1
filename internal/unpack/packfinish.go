package unpack

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// finish completes a thin pack, writes the index files and publishes the
// pack through the transaction (.keep, .pack, .rev, then the .idx that makes
// it visible). It returns the pack's checksum and the .keep it published.
func (d *packDest) finish(size int64, keep *Keep) (sum []byte, keepPath string, err error) {
	d.mu.Lock()
	if d.err == nil {
		d.err = packWriteErr("pack", loose.StageWrite, d.file.Name(), d.buf.Flush())
	}
	err = d.err
	d.mu.Unlock()
	if err != nil {
		d.discard()
		return nil, "", err
	}
	entries := d.entries.indexEntries()
	thin := d.entries.thinBases()
	var file batch.File
	if len(thin) == 0 {
		file, sum = d.file, make([]byte, d.fmt.Size())
		_, err = d.in.ReadAt(sum, size-int64(len(sum)))
		d.in.Close()
		if err != nil {
			d.discard()
		}
	} else {
		var added []pack.IndexEntry
		file, sum, added, err = d.complete(size, thin, keep.Compression)
		entries = append(entries, added...)
		d.discard() // the received pack; complete removed its own file on failure
	}
	if err != nil {
		return nil, "", err
	}
	files := []loose.PackFile{{Ext: "pack", File: file}}
	// Until PublishPack takes them over, a failure removes every file.
	abort := func(err error) ([]byte, string, error) {
		for _, f := range files {
			f.File.Close()
			d.store.FS().Remove(f.File.Name())
		}
		return nil, "", err
	}
	pack.SortIndexEntries(entries)
	var idx, rev bytes.Buffer
	if _, err := pack.WriteIndex(&idx, entries, sum, d.fmt); err != nil {
		return abort(err)
	}
	if err := pack.WriteReverseIndex(&rev, entries, sum, d.fmt); err != nil {
		return abort(err)
	}
	contents := map[string][]byte{"idx": idx.Bytes(), "rev": rev.Bytes()}
	if keep.File {
		contents["keep"] = nil
		if keep.Message != "" {
			contents["keep"] = []byte(keep.Message + "\n")
		}
	}
	for ext, data := range contents {
		f, err := d.store.CreatePackTemp(d.tx, ext)
		if err != nil {
			if ext == "keep" { // git writes the .keep under its name
				return abort(packWriteErr(ext, loose.StageCreate, d.store.PackPath(sum, ext), err))
			}
			return abort(createErr(d.store, ext, err))
		}
		files = append(files, loose.PackFile{Ext: ext, File: f})
		if _, err := f.Write(data); err != nil {
			return abort(packWriteErr(ext, loose.StageWrite, f.Name(), err))
		}
	}
	existed, err := d.store.PublishPack(d.tx, sum, files)
	if err != nil {
		var ce *batch.CommitError
		if errors.As(err, &ce) {
			// The final name pack-<sum>.<ext>, or a temporary file
			// tmp_<ext>_XXXXXX.
			ext := strings.TrimPrefix(filepath.Ext(ce.Path), ".")
			if b, ok := strings.CutPrefix(filepath.Base(ce.Path), "tmp_"); ok {
				ext, _, _ = strings.Cut(b, "_")
			}
			err = packWriteErr(ext, loose.StagePublish, ce.Path, err)
		}
		return nil, "", err
	}
	if keep.File && !existed {
		keepPath = d.store.PackPath(sum, "keep")
	}
	return sum, keepPath, nil
}

// complete writes a new temporary pack: the received one completed with
// the missing bases of its REF_DELTAs, read from the store (pack.Complete,
// git index-pack --fix-thin).
func (d *packDest) complete(size int64, bases []object.ID, level int) (batch.File, []byte, []pack.IndexEntry, error) {
	f, err := d.store.CreatePackTemp(d.tx, "pack")
	if err != nil {
		return nil, nil, nil, createErr(d.store, "pack", err)
	}
	sum, added, err := pack.Complete(f, d.in, size, d.fmt, bases, func(id object.ID) (pack.Base, error) {
		typ, data, err := d.store.Read(id)
		if err != nil {
			return pack.Base{}, &BaseError{ID: id, Err: err}
		}
		return pack.Base{ID: id, Type: typ, Data: data}, nil
	}, level)
	if err != nil {
		f.Close()
		d.store.FS().Remove(f.Name())
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "write" {
			err = packWriteErr("pack", loose.StageWrite, f.Name(), err)
		}
		return nil, nil, nil, err
	}
	return f, sum, added, nil
}
