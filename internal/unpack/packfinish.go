package unpack

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// finish completes a thin pack, writes the index files and publishes the
// pack through the transaction (.keep, .promisor, .pack, .rev, then the .idx
// that makes it visible). It returns the pack's checksum and the .keep it published.
func (d *packDest) finish(size int64, keep *Keep) (sum []byte, keepPath string, err error) {
	w, err := d.flushed(size, keep.Compression)
	if err != nil {
		return nil, "", err
	}
	sum = w.sum
	files := []loose.PackFile{{Ext: "pack", File: w.file}}
	files, err = d.indexFiles(files, sum, w.entries, keep)
	if err != nil {
		// Until PublishPack takes them over, a failure removes every file.
		for _, f := range files {
			f.File.Close()
			d.store.FS().Remove(f.File.Name())
		}
		return nil, "", err
	}
	existed, err := d.store.PublishPack(d.tx, sum, files)
	if err != nil {
		return nil, "", publishErr(err)
	}
	if keep.File && !existed {
		keepPath = d.store.PackPath(sum, "keep")
	}
	return sum, keepPath, nil
}

// written is a pack file written in full: the file, its checksum and the
// index entries of what it holds (or, from complete, of what was added).
type written struct {
	file    batch.File
	sum     []byte
	entries []pack.IndexEntry
}

// flushed flushes the received pack and returns the pack to publish (the
// received one, or a new one completed with a thin pack's bases) with its
// sorted index entries.
func (d *packDest) flushed(size int64, level int) (written, error) {
	d.mu.Lock()
	if d.err == nil {
		d.err = packWriteErr("pack", loose.StageWrite, d.file.Name(), d.buf.Flush())
	}
	err := d.err
	d.mu.Unlock()
	if err != nil {
		d.discard()
		return written{}, err
	}
	thin := d.entries.thinBases()
	entries := d.entries.takeIndexEntries()
	var w written
	if len(thin) == 0 {
		w.file, w.sum = d.file, make([]byte, d.fmt.Size())
		_, err = d.in.ReadAt(w.sum, size-int64(len(w.sum)))
		d.in.Close()
		if err != nil {
			d.discard()
			return written{}, err
		}
	} else {
		w, err = d.complete(size, thin, level)
		d.discard() // the received pack; complete removed its own file on failure
		if err != nil {
			return written{}, err
		}
		entries = append(entries, w.entries...)
	}
	w.entries = entries
	pack.SortIndexEntries(w.entries)
	return w, nil
}

// indexed is one file written beside a pack: its extension and its
// content, written straight to its temporary file (a buffer would hold a
// second copy of the largest index).
type indexed struct {
	ext   string
	write func(io.Writer) error
}

// indexFiles writes the .idx, the .rev and what keep asks for (.keep,
// .promisor) to temporary files and returns files with them appended;
// on failure, files holds every file made so far.
func (d *packDest) indexFiles(files []loose.PackFile, sum []byte, entries []pack.IndexEntry, keep *Keep) ([]loose.PackFile, error) {
	contents := []indexed{
		{"idx", func(w io.Writer) error {
			_, err := pack.WriteIndex(w, entries, sum, d.fmt)
			return err
		}},
		{"rev", func(w io.Writer) error { return pack.WriteReverseIndex(w, entries, sum, d.fmt) }},
	}
	if keep.File {
		msg := ""
		if keep.Message != "" {
			msg = keep.Message + "\n"
		}
		contents = append(contents, indexed{"keep", writeString(msg)})
	}
	if keep.Promisor {
		contents = append(contents, indexed{"promisor", writeString(keep.PromisorText)})
	}
	for _, c := range contents {
		f, err := d.store.CreatePackTemp(d.tx, c.ext)
		if err != nil {
			if c.ext == "keep" || c.ext == "promisor" { // git writes them under their names
				return files, packWriteErr(c.ext, loose.StageCreate, d.store.PackPath(sum, c.ext), err)
			}
			return files, createErr(d.store, c.ext, err)
		}
		files = append(files, loose.PackFile{Ext: c.ext, File: f})
		if err := writeBuffered(f, c); err != nil {
			return files, err
		}
	}
	return files, nil
}

// writeBuffered writes c's content to f through a buffer, telling a failed
// write of f from a refusal of what was to be written.
func writeBuffered(f batch.File, c indexed) error {
	w := &writeErr{w: f}
	bw := bufio.NewWriterSize(w, 64<<10)
	err := c.write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if w.err != nil {
		return packWriteErr(c.ext, loose.StageWrite, f.Name(), w.err)
	}
	return err
}

// writeString is a content of a few bytes.
func writeString(data string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, data)
		return err
	}
}

// publishErr names the file a failed publication of a pack was at: the
// final name pack-<sum>.<ext>, or a temporary file tmp_<ext>_XXXXXX.
func publishErr(err error) error {
	var ce *batch.CommitError
	if !errors.As(err, &ce) {
		return err
	}
	ext := strings.TrimPrefix(filepath.Ext(ce.Path), ".")
	if b, ok := strings.CutPrefix(filepath.Base(ce.Path), "tmp_"); ok {
		ext, _, _ = strings.Cut(b, "_")
	}
	return packWriteErr(ext, loose.StagePublish, ce.Path, err)
}

// complete writes a new temporary pack: the received one completed with
// the missing bases of its REF_DELTAs, read from the store (pack.Complete,
// git index-pack --fix-thin).
func (d *packDest) complete(size int64, bases []object.ID, level int) (written, error) {
	f, err := d.store.CreatePackTemp(d.tx, "pack")
	if err != nil {
		return written{}, createErr(d.store, "pack", err)
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
		return written{}, err
	}
	return written{file: f, sum: sum, entries: added}, nil
}

// writeErr passes writes on to w and keeps the first error w gave, to tell
// a failed write of a file from a refusal of what was to be written.
type writeErr struct {
	w   io.Writer
	err error
}

func (e *writeErr) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}
