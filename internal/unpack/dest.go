package unpack

import (
	"io"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// dest is where resolved objects go: loose objects, or the received pack
// kept as it is with an index.
type dest interface {
	// write keeps a resolved object and says whether it was new.
	write(id object.ID, typ object.Type, data []byte) (wrote bool, err error)
	// read returns an object of the pack (or of the store) that fell out of
	// the base cache.
	read(id object.ID) (object.Type, []byte, error)
	// stream takes a big blob's data from the pack without holding it.
	stream(size int64, r io.Reader) (id object.ID, wrote bool, err error)
}

// looseDest writes every new object as a loose object of the store.
type looseDest struct {
	store *loose.Store
	tx    *batch.Transaction
}

func (d looseDest) write(id object.ID, typ object.Type, data []byte) (bool, error) {
	need, err := d.store.Need(id)
	if err != nil || !need {
		return false, err
	}
	return true, d.store.Write(d.tx, id, typ, data)
}

func (d looseDest) read(id object.ID) (object.Type, []byte, error) { return d.store.Read(id) }

func (d looseDest) stream(size int64, r io.Reader) (object.ID, bool, error) {
	return d.store.WriteStream(d.tx, object.Blob, size, r)
}
