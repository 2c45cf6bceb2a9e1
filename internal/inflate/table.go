package inflate

import (
	"errors"
	"math/bits"
)

// A table entry packs what one lookup of the bits read so far tells:
//
//	bits  0-3   the code's length in bits, to consume (for a link: the
//	            primary table's bits)
//	bits  4-7   extra bits after the code (for a link: the subtable's bits)
//	bits  8-10  the kind
//	bits 16-31  the value: a literal byte, a length or distance base, an
//	            index of the code-length alphabet, or a subtable's offset
type entry uint32

const (
	kindInvalid entry = iota << 8 // no code starts with these bits
	kindLiteral
	kindLength
	kindEnd  // end of block
	kindLink // to a subtable, for codes longer than the primary bits
	kindSymbol
)

func (e entry) length() uint  { return uint(e & 15) }
func (e entry) extra() uint   { return uint(e>>4) & 15 }
func (e entry) kind() entry   { return e & (7 << 8) }
func (e entry) value() uint32 { return uint32(e >> 16) }
func mkEntry(kind entry, length, extra uint, value uint32) entry {
	return kind | entry(length) | entry(extra)<<4 | entry(value)<<16
}

// maxBits is the longest code DEFLATE has.
const maxBits = 15

var (
	errOversubscribed = errors.New("inflate: over-subscribed code lengths")
	errIncomplete     = errors.New("inflate: incomplete code lengths")
)

// build fills t with the decoding table of the canonical Huffman code whose
// lengths are lens (0: the symbol has no code), looking rootBits bits up
// at once and the rest in subtables after them; syms holds each symbol's
// entry, its length left to build. Where partial, an empty code and one
// code of one bit are allowed (a block's distances), as zlib allows them;
// any other incomplete code is not.
func build(t []entry, lens []uint8, rootBits uint, partial bool, syms []entry) error {
	count := counts(lens)
	count[0] = 0
	left := 1
	maxLen := uint(0)
	for l := 1; l <= maxBits; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return errOversubscribed
		}
		if count[l] > 0 {
			maxLen = uint(l)
		}
	}
	root := 1 << rootBits
	if left > 0 && (maxLen > 1 || !partial) {
		// Only an empty code and a single code of one bit may leave
		// entries unused (they stay invalid).
		return errIncomplete
	}
	// The first code of each length, then each symbol's in turn.
	var next [maxBits + 2]int
	code := 0
	for l := 1; l <= maxBits; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	// Symbols sorted by length, then by value: the canonical order.
	var order [320]uint16
	var offs [maxBits + 2]uint16
	for l := 1; l <= maxBits; l++ {
		offs[l+1] = offs[l] + uint16(count[l])
	}
	for s, l := range lens {
		if l != 0 {
			order[offs[l&maxBits]%uint16(len(order))] = uint16(s)
			offs[l&maxBits]++
		}
	}
	n := int(offs[maxBits]) // every symbol with a code, in order
	remaining := count      // the codes of each length not placed yet
	// The primary table is filled by doubling: the codes of length l go
	// into the first 2^l entries, which are then copied after themselves
	// before the codes of length l+1 — a code of length l owns every entry
	// whose low l bits are its (reversed) bits.
	t[0], t[1] = kindInvalid, kindInvalid
	filled := uint(1)
	i := 0
	for ; i < n; i++ {
		s := int(order[i])
		l := uint(lens[s])
		if l > rootBits {
			break
		}
		for filled < l {
			copy(t[1<<filled:2<<filled], t[:1<<filled])
			filled++
		}
		c := next[l]
		next[l]++
		t[reverse(c, l)] = syms[s] | entry(l)
		remaining[l]--
	}
	for filled < rootBits {
		copy(t[1<<filled:2<<filled], t[:1<<filled])
		filled++
	}
	size := root
	sub := -1 // the primary index of the subtable being filled
	subAt := 0
	subBits := uint(0)
	for ; i < n; i++ {
		s := int(order[i])
		l := uint(lens[s])
		c := next[l]
		next[l]++
		r := reverse(c, l)
		e := syms[s]
		if prefix := r & (root - 1); prefix != sub {
			// A new subtable, with as many bits as the codes under this
			// prefix need: the codes still to place fill it in order.
			sub, subAt = prefix, size
			subBits = l - rootBits
			room := 1 << subBits
			for subBits+rootBits < maxLen {
				room -= remaining[subBits+rootBits]
				if room <= 0 {
					break
				}
				subBits++
				room <<= 1
			}
			size += 1 << subBits
			if size > len(t) {
				return errOversubscribed
			}
			for j := subAt; j < size; j++ {
				t[j] = kindInvalid
			}
			t[prefix] = mkEntry(kindLink, rootBits, subBits, uint32(subAt))
		}
		for j := r >> rootBits; j < 1<<subBits; j += 1 << (l - rootBits) {
			t[subAt+j] = e | entry(l-rootBits)
		}
		remaining[l]--
	}
	return nil
}

// counts is how many codes of each length lens has.
func counts(lens []uint8) [maxBits + 1]int {
	// Four tallies, so that a run of one length does not wait on itself.
	var c [4][maxBits + 1]int
	i := 0
	for ; i+4 <= len(lens); i += 4 {
		c[0][lens[i]&maxBits]++
		c[1][lens[i+1]&maxBits]++
		c[2][lens[i+2]&maxBits]++
		c[3][lens[i+3]&maxBits]++
	}
	for ; i < len(lens); i++ {
		c[0][lens[i]&maxBits]++
	}
	for l := range c[0] {
		c[0][l] += c[1][l] + c[2][l] + c[3][l]
	}
	return c[0]
}

// reverse returns the low n bits of c in reverse order: DEFLATE sends
// Huffman codes most significant bit first into a stream read from the
// least significant bit.
func reverse(c int, n uint) int {
	return int(bits.Reverse16(uint16(c)) >> (16 - n))
}
