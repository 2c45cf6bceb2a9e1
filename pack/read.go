package pack

import (
	"io"

	"github.com/git-durable/git-durable/internal/inflate"
	"github.com/klauspost/compress/zlib"
)

// Read reads the inflated data of the current entry. It returns io.EOF after
// exactly Entry.Size bytes once the entry's zlib stream ended there, and an
// *InflateError when the stream ends early, runs long or is corrupt.
func (r *Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if !r.inEntry {
		return 0, io.EOF
	}
	n, err := r.read(p)
	if err != nil && err != io.EOF {
		err = r.keep(err)
	}
	return n, err
}

// read inflates the next bytes of the current entry into p.
func (r *Reader) read(p []byte) (int, error) {
	left := r.cur.Size - r.out
	if r.lazy {
		r.lazy = false
		if r.inflateWhole(p, left) {
			r.out, r.whole = r.cur.Size, true
			return int(left), nil
		}
		if err := r.startInflate(); err != nil {
			return 0, err
		}
	}
	if left == 0 {
		if r.whole {
			r.inEntry = false
			return 0, io.EOF
		}
		return 0, r.finishEntry()
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := r.zr.Read(p)
	r.out += int64(n)
	if r.src.pending() > advanceEvery {
		if cerr := r.checkpoint(); cerr != nil {
			return n, cerr
		}
	}
	switch {
	case err == io.EOF:
		if r.out < r.cur.Size {
			return n, &InflateError{Offset: r.cur.Offset, Code: 1}
		}
		r.inEntry = false
		if n > 0 {
			return n, nil
		}
		return 0, io.EOF
	case err != nil:
		return n, r.inflateError(err)
	}
	return n, nil
}

// finishEntry checks that the zlib stream ends right after Size bytes. It
// returns io.EOF when it does.
func (r *Reader) finishEntry() error {
	for {
		n, err := r.zr.Read(r.scratch[:])
		switch {
		case n > 0:
			return &InflateError{Offset: r.cur.Offset, Code: -5}
		case err == io.EOF:
			r.inEntry = false
			return io.EOF
		case err != nil:
			return r.inflateError(err)
		}
	}
}

// inflateWhole inflates the current entry into p in one call where p takes
// all of it and its compressed bytes are buffered already (most entries:
// the buffer reads 128 KiB ahead). It never waits for input: what it
// cannot finish from the buffer — input not there yet, or a corrupt stream
// — it leaves to the streaming decompressor, which starts from the same
// byte and says what is wrong.
func (r *Reader) inflateWhole(p []byte, left int64) bool {
	window, ok := bufferedWindow(r.br, left)
	if int64(len(p)) < left || !ok {
		return false
	}
	if r.fast == nil {
		r.fast = new(inflate.Decoder)
	}
	n, err := r.fast.Zlib(p[:left], window)
	if err != nil {
		return false
	}
	r.br.Discard(n)
	return true
}

// startInflate sets the decompressor on the data of the current entry.
func (r *Reader) startInflate() error {
	var err error
	if r.zr == nil {
		r.zr, err = zlib.NewReader(r.br)
	} else {
		err = r.zr.(zlib.Resetter).Reset(r.br, nil)
	}
	if err != nil {
		return r.inflateError(err)
	}
	return nil
}

// inflateError classifies a decompressor error: the end of the input is a
// structural (sticky) error, anything else belongs to the entry.
func (r *Reader) inflateError(err error) error {
	if r.src.err != nil {
		return r.structural(r.src.err)
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return r.structural(io.ErrUnexpectedEOF)
	}
	return &InflateError{Offset: r.cur.Offset, Code: -3, Err: err}
}
