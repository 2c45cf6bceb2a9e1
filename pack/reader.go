package pack

import (
	"bufio"
	"bytes"
	"errors"
	"hash/crc32"
	"io"

	"github.com/git-durable/git-durable/internal/inflate"
	"github.com/git-durable/git-durable/object"
)

// bufferSize is the read-ahead of the stream. It is larger than the 64 KiB
// stored-block reads of the inflater, so those never bypass the buffer.
const bufferSize = 128 << 10

// advanceEvery bounds the bytes held back from the hash inside one entry.
const advanceEvery = 256 << 10

// ReaderOptions configures a Reader. The zero value reads a SHA-1 pack of any
// size.
type ReaderOptions struct {
	// Format is the repository's object format: it sizes REF_DELTA base ids
	// and hashes the trailer. Zero means SHA-1.
	Format object.Format
	// MaxSize, when positive, fails the stream with ErrTooLarge once more
	// than MaxSize bytes (header included) have been consumed.
	MaxSize int64
	// Tee, when set, receives every byte of the pack as it is consumed, in
	// order and trailer included: a verbatim copy of the stream.
	Tee io.Writer
	// CRC32 makes the Reader compute each entry's CRC-32 (of its raw
	// bytes, header included), as a pack index records it.
	CRC32 bool
}

// Reader reads a pack stream entry by entry, like archive/tar's Reader:
// Next advances to the next entry and Read reads its inflated data. Entries
// need not be read to the end; Next discards the rest. Next returns io.EOF
// only after the trailer has been verified.
type Reader struct {
	src  *source
	br   *bufio.Reader
	zr   io.ReadCloser
	opts ReaderOptions
	hdr  Header
	seen uint32 // entries started

	cur     Entry
	inEntry bool  // cur's data is being read
	out     int64 // bytes of cur produced so far
	lazy    bool  // cur's decompressor is not started yet
	whole   bool  // cur was inflated whole from the buffered bytes
	fast    *inflate.Decoder
	sum     []byte
	scratch [1]byte

	// err is the error the exported methods return again. An *InflateError
	// belongs to the current entry: Read returns it until Next moves on, and
	// it is only ever held while inEntry. Any other error, and the io.EOF
	// after the trailer, is sticky. As in archive/tar, only the exported
	// methods set err; the steps they call return their errors.
	err error
}

// NewReader returns a Reader for the pack stream r.
func NewReader(r io.Reader, opts ReaderOptions) *Reader {
	if opts.Format == 0 {
		opts.Format = object.SHA1
	}
	// The trailer keeps the collision detection, unlike git's since 2.48:
	// a kept pack is named by it, and one of that name already there whose
	// bytes differ is taken for damaged and replaced (loose.Store's
	// PublishPack) where git refuses — so a pack crafted to collide must
	// not pass. It costs about 2 % of hashing the objects.
	src := &source{r: r, pend: make([]byte, 0, 2*bufferSize), hash: opts.Format.New(), tee: opts.Tee}
	if opts.CRC32 {
		src.crc = crc32.NewIEEE()
	}
	return &Reader{src: src, br: bufio.NewReaderSize(src, bufferSize), opts: opts}
}

// Offset returns the number of bytes of the stream consumed so far.
func (r *Reader) Offset() int64 { return r.src.n - int64(r.br.Buffered()) }

// Header reads the stream header if it has not been read yet and returns it.
func (r *Reader) Header() (Header, error) {
	if err := r.stickyErr(); err != nil || r.hdr.Version != 0 {
		return r.hdr, err
	}
	if err := r.readHeader(); err != nil {
		return r.hdr, r.keep(err)
	}
	return r.hdr, nil
}

// readHeader reads and checks the 12 bytes that start the stream.
func (r *Reader) readHeader() error {
	var b [HeaderSize]byte
	if _, err := io.ReadFull(r.br, b[:]); err != nil {
		return r.structural(err)
	}
	hdr, err := ParseHeader(b[:])
	if err != nil {
		return r.structural(err)
	}
	r.hdr = hdr
	return r.checkpoint()
}

// keep makes err, which an exported method is about to return, the
// Reader's error, unless one is kept already, and returns the kept one.
func (r *Reader) keep(err error) error {
	if r.err == nil {
		r.err = err
	}
	return r.err
}

// stickyErr returns the Reader's error unless it belongs to the current
// entry only.
func (r *Reader) stickyErr() error {
	if _, ok := r.err.(*InflateError); ok {
		return nil
	}
	return r.err
}

// structural returns the error to report for err, a failure in the
// structure of the stream or of its input: a read error of the input takes
// its place, and a premature end of input becomes io.ErrUnexpectedEOF.
func (r *Reader) structural(err error) error {
	if r.src.err != nil {
		err = r.src.err
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// checkpoint passes consumed bytes on and enforces MaxSize.
func (r *Reader) checkpoint() error {
	off := r.Offset()
	if r.opts.MaxSize > 0 && off > r.opts.MaxSize {
		return r.structural(ErrTooLarge)
	}
	if err := r.src.advance(off); err != nil {
		return r.structural(err)
	}
	return nil
}

// Next advances to the next entry. It returns io.EOF after the last entry,
// once the trailer matched. A *TypeError is returned for an entry of type 0
// or 5 and is not sticky. When the previous entry was not read to its end
// and the rest of its data turns out corrupt, Next returns that entry's
// *InflateError; call Next again to go on.
func (r *Reader) Next() (Entry, error) {
	if _, err := r.Header(); err != nil {
		return Entry{}, err
	}
	// Past Header, r.err is nil or the current entry's *InflateError.
	if r.inEntry && r.err == nil {
		if _, err := io.Copy(io.Discard, r); err != nil {
			r.inEntry = false
			r.err = r.stickyErr()
			return Entry{}, err
		}
	}
	r.inEntry, r.out, r.err = false, 0, nil
	if err := r.checkpoint(); err != nil {
		return Entry{}, r.keep(err)
	}
	if r.src.crc != nil {
		r.src.crc.Reset()
	}
	if r.seen == r.hdr.Count {
		return Entry{}, r.keep(r.trailer())
	}
	r.seen++
	e, err := readEntryHeader(r.br, r.Offset(), r.opts.Format)
	if err != nil {
		if _, ok := err.(*TypeError); ok {
			return Entry{}, err
		}
		return Entry{}, r.keep(r.structural(err))
	}
	r.cur, r.inEntry, r.lazy, r.whole = e, true, true, false
	return e, nil
}

// trailer verifies the checksum after the last entry and returns io.EOF
// when it matches.
func (r *Reader) trailer() error {
	r.sum = r.src.hash.Sum(nil)
	r.src.hash = nil
	got := make([]byte, len(r.sum))
	if _, err := io.ReadFull(r.br, got); err != nil {
		return r.structural(err)
	}
	if err := r.checkpoint(); err != nil {
		return err
	}
	if !bytes.Equal(got, r.sum) {
		return r.structural(ErrChecksum)
	}
	return io.EOF
}

// CRC32 returns the CRC-32 of the raw bytes of the current entry, once its
// data has been read to io.EOF (ReaderOptions.CRC32 must be set).
func (r *Reader) CRC32() (uint32, error) {
	if r.src.crc == nil {
		return 0, errors.New("pack: CRC32 not enabled")
	}
	if r.inEntry {
		return 0, errors.New("pack: entry not read to its end")
	}
	if err := r.checkpoint(); err != nil {
		return 0, r.keep(err)
	}
	return r.src.crc.Sum32(), nil
}

// Checksum returns the pack's trailer once Next has returned io.EOF.
func (r *Reader) Checksum() []byte {
	if r.err != io.EOF {
		return nil
	}
	return r.sum
}

// Rest returns the bytes that were read ahead past the trailer, without
// reading more input. It is meaningful once Next has returned io.EOF.
func (r *Reader) Rest() []byte {
	b, _ := r.br.Peek(r.br.Buffered())
	return b
}

// Recoverable reports whether err belongs to one entry and leaves the stream
// usable: Next may be called again (git's unpack-objects -r goes on).
func Recoverable(err error) bool {
	var te *TypeError
	var ie *InflateError
	return errors.As(err, &te) || errors.As(err, &ie)
}
