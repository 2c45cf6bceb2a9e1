package unpack

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// finish completes a thin pack, writes the index files and publishes the
// pack through the transaction (.keep, .pack, .rev, then the .idx that makes
// it visible). It returns the pack's checksum and the .keep it published.
func (d *packDest) finish(hdr pack.Header, size int64, keep *Keep) (sum []byte, keepPath string, err error) {
	d.mu.Lock()
	if d.err == nil {
		d.err = d.buf.Flush()
	}
	err = d.err
	d.mu.Unlock()
	if err != nil {
		d.discard()
		return nil, "", err
	}
	u := d.u
	entries := make([]pack.IndexEntry, 0, len(u.entries))
	for _, e := range u.entries {
		entries = append(entries, pack.IndexEntry{ID: e.id, Offset: e.off, CRC32: e.crc})
	}
	var thin []object.ID
	for id := range u.external {
		if _, ok := u.ids[id]; !ok {
			thin = append(thin, id)
		}
	}
	var file batch.File
	if len(thin) == 0 {
		file, sum = d.file, make([]byte, u.fmt.Size())
		_, err = d.in.ReadAt(sum, size-int64(len(sum)))
		d.in.Close()
		if err != nil {
			d.discard()
		}
	} else {
		var added []pack.IndexEntry
		file, sum, added, err = d.complete(hdr, size, thin, keep.Compression)
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
	if _, err := pack.WriteIndex(&idx, entries, sum, u.fmt); err != nil {
		return abort(err)
	}
	if err := pack.WriteReverseIndex(&rev, entries, sum, u.fmt); err != nil {
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
		f, err := d.store.CreatePackTemp(u.tx, ext)
		if err != nil {
			return abort(err)
		}
		files = append(files, loose.PackFile{Ext: ext, File: f})
		if _, err := f.Write(data); err != nil {
			return abort(err)
		}
	}
	existed, err := d.store.PublishPack(u.tx, sum, files)
	if err != nil {
		return nil, "", err
	}
	if keep.File && !existed {
		keepPath = d.store.PackPath(sum, "keep")
	}
	return sum, keepPath, nil
}

// complete writes a new temporary pack: the received one with the missing
// bases of its REF_DELTAs appended as whole objects, the count in the
// header raised and the trailer recomputed (git index-pack --fix-thin).
func (d *packDest) complete(hdr pack.Header, size int64, bases []object.ID, level int) (batch.File, []byte, []pack.IndexEntry, error) {
	f, err := d.store.CreatePackTemp(d.u.tx, "pack")
	if err != nil {
		return nil, nil, nil, err
	}
	fail := func(err error) (batch.File, []byte, []pack.IndexEntry, error) {
		f.Close()
		d.store.FS().Remove(f.Name())
		return nil, nil, nil, err
	}
	h := d.u.fmt.New()
	w := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<20)
	var head [12]byte
	copy(head[:], "PACK")
	binary.BigEndian.PutUint32(head[4:], hdr.Version)
	binary.BigEndian.PutUint32(head[8:], hdr.Count+uint32(len(bases)))
	w.Write(head[:])
	body := size - 12 - int64(d.u.fmt.Size())
	if _, err := io.Copy(w, io.NewSectionReader(d.in, 12, body)); err != nil {
		return fail(err)
	}
	off := 12 + body
	var added []pack.IndexEntry
	var entry bytes.Buffer
	zw, err := zlib.NewWriterLevel(&entry, level)
	if err != nil {
		return fail(err)
	}
	for _, id := range bases {
		typ, data, err := d.store.Read(id)
		if err != nil {
			return fail(&BaseError{ID: id, Err: err})
		}
		entry.Reset()
		entry.Write(pack.AppendEntryHeader(nil, typ, int64(len(data))))
		zw.Reset(&entry)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			return fail(err)
		}
		added = append(added, pack.IndexEntry{ID: id, Offset: off, CRC32: crc32.ChecksumIEEE(entry.Bytes())})
		w.Write(entry.Bytes())
		off += int64(entry.Len())
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	sum := h.Sum(nil)
	if _, err := f.Write(sum); err != nil {
		return fail(err)
	}
	return f, sum, added, nil
}
