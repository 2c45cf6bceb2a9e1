package pack

import (
	"io"

	"github.com/git-durable/git-durable/object"
)

// Base is an object appended to complete a thin pack.
type Base struct {
	ID   object.ID
	Type object.Type
	Data []byte
}

// Complete writes to w the thin pack held in src (size bytes: header,
// entries, trailer) completed with the bases its REF_DELTAs name but do
// not carry, as git index-pack --fix-thin does: the entries unchanged, each
// base appended as a whole object deflated at level, the header's count
// raised and the trailer recomputed. base is asked for each id in order;
// its error is returned as is. Complete returns the new trailer and the
// index entries of the appended objects.
func Complete(w io.Writer, src io.ReaderAt, size int64, f object.Format, ids []object.ID, base func(object.ID) (Base, error), level int) ([]byte, []IndexEntry, error) {
	var head [HeaderSize]byte
	if _, err := src.ReadAt(head[:], 0); err != nil {
		return nil, nil, err
	}
	hdr, err := ParseHeader(head[:])
	if err != nil {
		return nil, nil, err
	}
	hdr.Count += uint32(len(ids))
	a, err := newAppender(w, f.New(), level)
	if err != nil {
		return nil, nil, err
	}
	a.bw.Write(AppendHeader(nil, hdr))
	body := size - HeaderSize - int64(f.Size())
	if _, err := io.Copy(a.bw, io.NewSectionReader(src, HeaderSize, body)); err != nil {
		return nil, nil, err
	}
	a.off = HeaderSize + body
	for _, id := range ids {
		b, err := base(id)
		if err != nil {
			return nil, nil, err
		}
		b.ID = id // the entry is indexed under the id asked for
		if err := a.add(b); err != nil {
			return nil, nil, err
		}
	}
	return a.finish()
}
