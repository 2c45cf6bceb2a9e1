package inflate

import "encoding/binary"

// decode decodes one block's symbols with the tables lit and dist until its
// end-of-block code, into dst from out on. The reader's state is kept in
// locals while it runs and written back at the block's end; only br.refill
// reads past the end of src, and it leaves br.pos there, which is all
// deflate asks of the reader after an error.
func decode(dst []byte, out int, br *bitReader, lit *[litSize]entry, dist *[distSize]entry) (int, error) {
	src := br.src
	bits, nbits, pos := br.bits, br.nbits, br.pos
	const litMask, distMask = 1<<litBits - 1, 1<<distBits - 1
	for {
		// One refill is enough for a length, its extra bits, a distance
		// and its extra bits: 15 + 5 + 15 + 13 = 48 bits.
		if nbits < 48 {
			if pos+8 <= len(src) {
				bits |= binary.LittleEndian.Uint64(src[pos:]) << nbits
				pos += int(63-nbits) >> 3
				nbits |= 56
			} else {
				br.bits, br.nbits, br.pos = bits, nbits, pos
				br.refill()
				bits, nbits, pos = br.bits, br.nbits, br.pos
			}
		}
		e := lit[bits&litMask]
		if e.kind() == kindLiteral {
			// A literal takes at most 15 bits: up to three in a row
			// before the next refill.
			for range 3 {
				bits >>= e.length()
				nbits -= e.length()
				if out >= len(dst) {
					return out, ErrCorrupt
				}
				dst[out] = byte(e.value())
				out++
				e = lit[bits&litMask]
				if e.kind() != kindLiteral {
					break
				}
			}
			if e.kind() == kindLiteral || nbits < 48 {
				continue
			}
		}
		if e.kind() == kindLink {
			bits >>= litBits
			nbits -= litBits
			e = lit[(e.value()+uint32(bits)&(1<<e.extra()-1))%litSize]
		}
		bits >>= e.length()
		nbits -= e.length()
		switch e.kind() {
		case kindLiteral:
			if out >= len(dst) {
				return out, ErrCorrupt
			}
			dst[out] = byte(e.value())
			out++
			continue
		case kindEnd:
			br.bits, br.nbits, br.pos = bits, nbits, pos
			return out, nil
		case kindLength:
		default:
			return out, ErrCorrupt
		}
		length := int(e.value()) + int(bits&(1<<e.extra()-1))
		bits >>= e.extra()
		nbits -= e.extra()

		e = dist[bits&distMask]
		if e.kind() == kindLink {
			bits >>= distBits
			nbits -= distBits
			e = dist[(e.value()+uint32(bits)&(1<<e.extra()-1))%distSize]
		}
		bits >>= e.length()
		nbits -= e.length()
		if e.kind() != kindSymbol {
			return out, ErrCorrupt
		}
		distance := int(e.value()) + int(bits&(1<<e.extra()-1))
		bits >>= e.extra()
		nbits -= e.extra()

		if distance > out || length > len(dst)-out {
			return out, ErrCorrupt
		}
		if distance >= 8 && out+length+8 <= len(dst) {
			// Eight bytes at a time, the last chunk running past the
			// match into output not written yet.
			from, end := out-distance, out+length
			for out < end {
				binary.LittleEndian.PutUint64(dst[out:], binary.LittleEndian.Uint64(dst[from:]))
				out += 8
				from += 8
			}
			out = end
			continue
		}
		out = match(dst, out, distance, length)
	}
}

// match copies length bytes from distance back, which may overlap what it
// writes, and returns the new end of the output.
func match(dst []byte, out, distance, length int) int {
	from := out - distance
	end := out + length
	switch {
	case distance >= length:
		copy(dst[out:end], dst[from:])
	case distance == 1:
		b := dst[from]
		for i := out; i < end; i++ {
			dst[i] = b
		}
	default:
		for i := out; i < end; i++ {
			dst[i] = dst[i-distance]
		}
	}
	return end
}

// The code-length alphabet's order in a dynamic block's header.
var codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// tables reads a dynamic block's header and builds its tables.
func (d *Decoder) tables(br *bitReader) error {
	br.refill()
	nlit := int(br.take(5)) + 257
	ndist := int(br.take(5)) + 1
	ncode := int(br.take(4)) + 4
	if nlit > 286 || ndist > 30 {
		return ErrCorrupt
	}
	var clens [19]uint8
	for i := range ncode {
		if br.nbits < 3 {
			br.refill()
		}
		clens[codeOrder[i]] = uint8(br.take(3))
	}
	if err := build(d.code[:], clens[:], codeBits, false, codeSyms[:]); err != nil {
		return ErrCorrupt
	}
	lens := d.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		if br.nbits < codeBits+7 {
			br.refill()
		}
		e := d.code[br.bits&(1<<codeBits-1)]
		if e.kind() != kindSymbol {
			return ErrCorrupt
		}
		br.take(e.length())
		v := uint8(e.value())
		if v < 16 {
			lens[i] = v
			i++
			continue
		}
		var n int
		var fill uint8
		switch v {
		case 16:
			if i == 0 {
				return ErrCorrupt
			}
			n, fill = 3+int(br.take(2)), lens[i-1]
		case 17:
			n = 3 + int(br.take(3))
		default:
			n = 11 + int(br.take(7))
		}
		if i+n > len(lens) {
			return ErrCorrupt
		}
		for range n {
			lens[i] = fill
			i++
		}
	}
	if lens[256] == 0 {
		return ErrCorrupt // no end of block
	}
	if err := build(d.lit[:], lens[:nlit], litBits, true, litSyms[:]); err != nil {
		return ErrCorrupt
	}
	if err := build(d.dist[:], lens[nlit:], distBits, true, distSyms[:]); err != nil {
		return ErrCorrupt
	}
	return nil
}

// The lengths and distances the symbols stand for: a base, and how many
// extra bits to add to it.
var (
	lengthBase, distBase   [32]uint32
	lengthExtra, distExtra [32]uint
)

func init() {
	base := uint32(3)
	for i := range 28 {
		extra := uint(0)
		if i >= 8 {
			extra = uint(i/4 - 1)
		}
		lengthBase[i], lengthExtra[i] = base, extra
		base += 1 << extra
	}
	lengthBase[28] = 258
	base = 1
	for i := range 30 {
		extra := uint(0)
		if i >= 4 {
			extra = uint(i/2 - 1)
		}
		distBase[i], distExtra[i] = base, extra
		base += 1 << extra
	}
}

// The entries of each alphabet's symbols.
var (
	litSyms  [288]entry
	distSyms [32]entry
	codeSyms [19]entry
)

func init() {
	for s := range litSyms {
		litSyms[s] = litSymbol(s)
	}
	for s := range distSyms {
		distSyms[s] = distSymbol(s)
	}
	for s := range codeSyms {
		codeSyms[s] = mkEntry(kindSymbol, 0, 0, uint32(s))
	}
}

// The tables of the fixed code, built once.
var fixedLit [litSize]entry
var fixedDist [distSize]entry

func init() {
	var lens [288]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	if err := build(fixedLit[:], lens[:], litBits, false, litSyms[:]); err != nil {
		panic(err)
	}
	var dlens [32]uint8
	for i := range dlens {
		dlens[i] = 5
	}
	if err := build(fixedDist[:], dlens[:], distBits, false, distSyms[:]); err != nil {
		panic(err)
	}
}

// litSymbol is the entry of a literal/length symbol.
func litSymbol(s int) entry {
	switch {
	case s < 256:
		return mkEntry(kindLiteral, 0, 0, uint32(s))
	case s == 256:
		return mkEntry(kindEnd, 0, 0, 0)
	case s <= 285:
		return mkEntry(kindLength, 0, lengthExtra[s-257], lengthBase[s-257])
	}
	return kindInvalid
}

// distSymbol is the entry of a distance symbol.
func distSymbol(s int) entry {
	if s < 30 {
		return mkEntry(kindSymbol, 0, distExtra[s], distBase[s])
	}
	return kindInvalid
}
