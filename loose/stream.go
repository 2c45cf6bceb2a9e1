package loose

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/object"
)

// WriteStream writes an object of type t whose size bytes of data come from
// r, without holding it in memory (git's big-blob path): it is deflated into
// objects/tmp_obj_* while hashed, then published under its id unless a good
// copy exists (wrote is false then).
func (s *Store) WriteStream(tx *batch.Transaction, t object.Type, size int64, r io.Reader) (id object.ID, wrote bool, err error) {
	f, err := s.createTemp(s.dir)
	if err != nil {
		return id, false, err
	}
	id, err = s.streamTo(f, t, size, r)
	if err == nil {
		var need bool
		if need, err = s.Need(id); err == nil && !need {
			f.Close()
			return id, false, s.fs.Remove(f.Name())
		}
	}
	if err == nil {
		tx.Written(f)
		err = s.ensureShard(tx, id)
	}
	if err != nil {
		f.Close()
		s.fs.Remove(f.Name())
		return id, false, err
	}
	return id, true, s.publish(tx, f, id)
}

// streamTo deflates the object into f as it hashes it and returns its id:
// a *StreamError where r holds fewer or more than size bytes.
func (s *Store) streamTo(f batch.File, t object.Type, size int64, r io.Reader) (object.ID, error) {
	out := bufio.NewWriterSize(tmpWriter{f, f.Name()}, 256<<10)
	zw, err := zlib.NewWriterLevel(out, s.level)
	if err != nil {
		return object.ID{}, fmt.Errorf("bad zlib compression level %d", s.level)
	}
	h := s.opts.Format.NewHasher()
	h.Begin(t, size)
	var hdr [32]byte
	zw.Write(object.Header(hdr[:0], t, size))
	n, err := io.Copy(io.MultiWriter(zw, h), io.LimitReader(r, size+1))
	hlen := int64(len(object.Header(hdr[:0], t, size)))
	if errors.Is(err, ErrEnded) || err == nil && n != size {
		return object.ID{}, &StreamError{Got: n + hlen, Want: size + hlen}
	}
	if err != nil {
		return object.ID{}, err
	}
	if err := zw.Close(); err != nil {
		return object.ID{}, err
	}
	if err := out.Flush(); err != nil {
		return object.ID{}, err
	}
	return h.Sum()
}

// ErrEnded is what a reader given to WriteStream returns when its data
// ended, by its own format's rules, before size bytes.
var ErrEnded = errors.New("loose: the data ended before its declared size")

// StreamError means a streamed object's data was not as long as declared.
// The counts include the object header, as in git's message.
type StreamError struct{ Got, Want int64 }

func (e *StreamError) Error() string {
	return fmt.Sprintf("write stream object %d != %d", e.Got, e.Want)
}
