package loose

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/klauspost/compress/zlib"

	"github.com/git-durable/git-durable/object"
)

// Errors about loose object files.
var (
	// ErrCorrupt means a loose object file is empty, does not inflate, or
	// inflates to something other than its header promises.
	ErrCorrupt = errors.New("loose: corrupt loose object")
	// ErrHashMismatch means a loose object's content hashes to another id.
	ErrHashMismatch = fmt.Errorf("%w: content does not match its name", ErrCorrupt)
)

// CorruptError names the file of a corrupt loose object.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("loose object %s is corrupt: %v", e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// maxHeader bounds the "<type> <size>\x00" header.
const maxHeader = 64

// Decode inflates the bytes of a loose object file and returns its type and
// data. The data must be exactly as long as the header says, the zlib
// stream must end right after it, and the file right after the stream.
// Memory grows with the data actually inflated, not with the size the
// header claims.
func Decode(raw []byte) (object.Type, []byte, error) {
	if len(raw) == 0 {
		return object.Bad, nil, fmt.Errorf("%w: empty file", ErrCorrupt)
	}
	var buf *bytes.Buffer
	t, err := inflate(bytes.NewReader(raw), func(t object.Type, size int64) io.Writer {
		// A first guess from the file's size; the buffer grows with what
		// really inflates, never to the size a (truncated) header claims.
		buf = bytes.NewBuffer(make([]byte, 0, min(size, int64(len(raw))*4+maxHeader)))
		return buf
	})
	if err != nil {
		return object.Bad, nil, err
	}
	return t, buf.Bytes(), nil
}

// byteReader is what inflate reads: an io.ByteReader, so that the inflater
// reads nothing past the end of the zlib stream.
type byteReader interface {
	io.Reader
	io.ByteReader
}

// inflate reads one loose object from r and writes its data to the writer
// begin returns once the header is known. It checks that the data is as
// long as the header says, that the zlib stream ends right after it and r
// right after the stream ("garbage at end of loose object" in git).
func inflate(r byteReader, begin func(t object.Type, size int64) io.Writer) (object.Type, error) {
	zr, err := inflater(r)
	if err != nil {
		return object.Bad, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	defer inflaters.Put(zr)
	var hdr [maxHeader]byte
	n, err := io.ReadFull(zr, hdr[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return object.Bad, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	t, size, body, err := ParseHeader(hdr[:n])
	if err != nil {
		return object.Bad, err
	}
	if int64(len(body)) > size {
		return object.Bad, fmt.Errorf("%w: longer than its header says", ErrCorrupt)
	}
	w := begin(t, size)
	w.Write(body)
	got, err := io.Copy(w, io.LimitReader(zr, size-int64(len(body))+1))
	if err != nil {
		return object.Bad, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if got += int64(len(body)); got != size {
		return object.Bad, fmt.Errorf("%w: %d bytes, header says %d", ErrCorrupt, got, size)
	}
	// The stream must end here; this read also checks the Adler-32.
	var one [1]byte
	if k, err := zr.Read(one[:]); k != 0 || err != io.EOF {
		return object.Bad, fmt.Errorf("%w: zlib stream does not end with the data", ErrCorrupt)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return object.Bad, fmt.Errorf("%w: garbage at end of loose object", ErrCorrupt)
	}
	return t, nil
}

// inflaters keeps zlib readers (each with its 32 KiB window) for reuse.
var inflaters sync.Pool

func inflater(src io.Reader) (io.ReadCloser, error) {
	if zr, ok := inflaters.Get().(io.ReadCloser); ok {
		return zr, zr.(zlib.Resetter).Reset(src, nil)
	}
	return zlib.NewReader(src)
}

// ParseHeader splits "<type> <size>\x00<rest>".
func ParseHeader(b []byte) (t object.Type, size int64, rest []byte, err error) {
	sp := bytes.IndexByte(b, ' ')
	nul := bytes.IndexByte(b, 0)
	if sp <= 0 || nul <= sp+1 {
		return object.Bad, 0, nil, fmt.Errorf("%w: bad header", ErrCorrupt)
	}
	t, ok := object.ParseType(b[:sp])
	if !ok {
		return object.Bad, 0, nil, fmt.Errorf("%w: bad type %q", ErrCorrupt, b[:sp])
	}
	digits := b[sp+1 : nul]
	if len(digits) > 1 && digits[0] == '0' {
		return object.Bad, 0, nil, fmt.Errorf("%w: bad size", ErrCorrupt)
	}
	size, err = strconv.ParseInt(string(digits), 10, 64)
	if err != nil || size < 0 {
		return object.Bad, 0, nil, fmt.Errorf("%w: bad size", ErrCorrupt)
	}
	return t, size, b[nul+1:], nil
}
