// Package inflate decompresses a zlib stream whose inflated size is known
// beforehand, as a pack entry's header gives it, in one call into a buffer
// of that size.
//
// A general decompressor streams: it keeps a window, checks for the end of
// its input on every symbol and refills from a reader. Knowing where the
// output ends and holding all of the input lets the loop read 64 bits at
// once, copy matches inside the output itself and build each block's
// tables by doubling: 1.65× github.com/klauspost/compress/flate per entry
// of git.git's pack (BenchmarkEntries), most of them small. Anything this
// decoder does not finish (input that ends early, any corrupt stream) is
// reported, not mended: the caller then decompresses the same bytes with a
// streaming decompressor, which says what is wrong in its words.
package inflate

import (
	"encoding/binary"
	"errors"
	"hash/adler32"
)

// ErrShort means the input ended before the stream did, or the stream went
// wrong after its input ran out: more of it may be needed.
var ErrShort = errors.New("inflate: input ends inside the stream")

// ErrCorrupt means the stream is not a valid zlib stream of that size.
var ErrCorrupt = errors.New("inflate: corrupt stream")

// Table sizes: the primary tables' bits, and room for their subtables.
const (
	litBits  = 10
	distBits = 8
	codeBits = 7
	litSize  = 1<<litBits + 2048
	distSize = 1<<distBits + 32*128
)

// Decoder holds the tables of the block being decoded; reuse one to save
// their allocation. It is not safe for concurrent use.
type Decoder struct {
	lit  [litSize]entry
	dist [distSize]entry
	code [1 << codeBits]entry
	lens [288 + 32]uint8
}

// Zlib inflates the zlib stream at the start of src into dst, whose length
// must be the inflated size, and returns how many bytes of src the stream
// took: its header, the compressed blocks and the Adler-32 after them,
// which is checked. It returns ErrShort when src ends first and ErrCorrupt
// for anything else.
func (d *Decoder) Zlib(dst, src []byte) (int, error) {
	if len(src) < 2 {
		return 0, ErrShort
	}
	cmf, flg := src[0], src[1]
	if cmf&15 != 8 || cmf>>4 > 7 || (uint(cmf)<<8|uint(flg))%31 != 0 || flg&0x20 != 0 {
		return 0, ErrCorrupt
	}
	n, err := d.deflate(dst, src[2:])
	if err != nil {
		return 0, err
	}
	n += 2
	if len(src) < n+4 {
		return 0, ErrShort
	}
	if binary.BigEndian.Uint32(src[n:]) != adler32.Checksum(dst) {
		return 0, ErrCorrupt
	}
	return n + 4, nil
}

// bitReader reads src from its least significant bit on, 64 bits at a
// time; past the end of src it reads zeros, which a stream that ends in
// src never consumes.
type bitReader struct {
	src   []byte
	bits  uint64
	nbits uint
	pos   int // the next byte of src to load
}

// refill makes at least 56 bits ready.
func (b *bitReader) refill() {
	if b.nbits > 56 {
		return
	}
	if b.pos+8 <= len(b.src) {
		b.bits |= binary.LittleEndian.Uint64(b.src[b.pos:]) << b.nbits
		b.pos += int(63-b.nbits) >> 3
		b.nbits |= 56
		return
	}
	for b.nbits <= 56 {
		if b.pos < len(b.src) {
			b.bits |= uint64(b.src[b.pos]) << b.nbits
		}
		b.pos++
		b.nbits += 8
	}
}

// take consumes n bits (n ≤ the bits ready) and returns them.
func (b *bitReader) take(n uint) uint32 {
	v := uint32(b.bits & (1<<n - 1))
	b.bits >>= n
	b.nbits -= n
	return v
}

// consumed is the count of whole bytes read so far.
func (b *bitReader) consumed() int { return b.pos - int(b.nbits>>3) }

// deflate decodes the DEFLATE blocks at the start of src, which must fill
// dst exactly, and returns how many bytes they took.
func (d *Decoder) deflate(dst, src []byte) (int, error) {
	br := bitReader{src: src}
	out := 0
	for {
		br.refill()
		final := br.take(1)
		var err error
		switch br.take(2) {
		case 0:
			out, err = stored(dst, out, &br)
		case 1:
			out, err = decode(dst, out, &br, &fixedLit, &fixedDist)
		case 2:
			if err = d.tables(&br); err == nil {
				out, err = decode(dst, out, &br, &d.lit, &d.dist)
			}
		default:
			err = ErrCorrupt
		}
		// Past the end of src the reader reads zeros: whatever goes wrong
		// once it has, or a stream that takes them, may be src cut short.
		if err != nil && br.pos > len(src) || err == nil && br.consumed() > len(src) {
			err = ErrShort
		}
		if err != nil {
			return 0, err
		}
		if final == 1 {
			break
		}
	}
	if out != len(dst) {
		return 0, ErrCorrupt
	}
	br.take(br.nbits & 7)
	return br.consumed(), nil
}

// stored copies a stored block.
func stored(dst []byte, out int, br *bitReader) (int, error) {
	br.take(br.nbits & 7)
	p := br.consumed()
	src := br.src
	if p+4 > len(src) {
		return out, ErrShort
	}
	n := int(binary.LittleEndian.Uint16(src[p:]))
	if uint16(n) != ^binary.LittleEndian.Uint16(src[p+2:]) {
		return out, ErrCorrupt
	}
	p += 4
	if p+n > len(src) {
		return out, ErrShort
	}
	if n > len(dst)-out {
		return out, ErrCorrupt
	}
	copy(dst[out:], src[p:p+n])
	*br = bitReader{src: src, pos: p + n}
	return out + n, nil
}
