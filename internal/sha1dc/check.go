package sha1dc

import (
	"encoding/binary"
	"math/bits"

	"github.com/pjbgf/sha1cd/ubc"
)

// The round constants of SHA-1, one for each 20 steps.
var roundK = [4]uint32{0x5A827999, 0x6ED9EBA1, 0x8F1BBCDC, 0xCA62C1D6}

// dvMask tests a block's message words against the unavoidable bit
// conditions; a bit set names a disturbance vector whose every condition
// holds. It reads only words 35 to 64, all the compression writes down.
func dvMask(w *[80]uint32) uint32 { return ubc.CalculateDvMask(w) }

// expand writes a block's 80-word message schedule.
func expand(w *[80]uint32, block []byte) {
	load(w, block)
	schedule(w, 16, 80)
}

// expandFrom is expand for a block whose words 32 to 67 compress wrote
// down already: the recurrence runs for the other 28 alone.
func expandFrom(w *[80]uint32, block []byte, words *[80]uint32) {
	load(w, block)
	schedule(w, 16, 32)
	copy(w[32:68], words[32:68])
	schedule(w, 68, 80)
}

// load reads a block's 16 words.
func load(w *[80]uint32, block []byte) {
	for i := range 16 {
		w[i] = binary.BigEndian.Uint32(block[4*i:])
	}
}

// schedule computes the message words from to to-1 from the 16 before
// each.
func schedule(w *[80]uint32, from, to int) {
	for i := from; i < to; i++ {
		w[i] = bits.RotateLeft32(w[i-3]^w[i-8]^w[i-14]^w[i-16], 1)
	}
}

// The boolean functions of SHA-1's four rounds of 20 steps.
func choose(b, c, d uint32) uint32 { return d ^ (b & (c ^ d)) }
func parity(b, c, d uint32) uint32 { return b ^ c ^ d }
func majority(b, c, d uint32) uint32 {
	return (b & c) | (d & (b | c))
}

// noDifference is the message difference of the block itself.
var noDifference [80]uint32

// forward runs steps from to to-1 on the working state s with the message
// words w (each xored with dm[t] when dm is given), one loop a round.
func forward(s *[5]uint32, from, to int, w, dm *[80]uint32) {
	if dm == nil {
		dm = &noDifference
	}
	a, b, c, d, e := s[0], s[1], s[2], s[3], s[4]
	t := from
	for ; t < min(to, 20); t++ {
		a, b, c, d, e = bits.RotateLeft32(a, 5)+choose(b, c, d)+e+roundK[0]+(w[t]^dm[t]), a, bits.RotateLeft32(b, 30), c, d
	}
	for ; t < min(to, 40); t++ {
		a, b, c, d, e = bits.RotateLeft32(a, 5)+parity(b, c, d)+e+roundK[1]+(w[t]^dm[t]), a, bits.RotateLeft32(b, 30), c, d
	}
	for ; t < min(to, 60); t++ {
		a, b, c, d, e = bits.RotateLeft32(a, 5)+majority(b, c, d)+e+roundK[2]+(w[t]^dm[t]), a, bits.RotateLeft32(b, 30), c, d
	}
	for ; t < to; t++ {
		a, b, c, d, e = bits.RotateLeft32(a, 5)+parity(b, c, d)+e+roundK[3]+(w[t]^dm[t]), a, bits.RotateLeft32(b, 30), c, d
	}
	*s = [5]uint32{a, b, c, d, e}
}

// backward undoes steps from-1 down to 0: from the working state before
// step from, the chaining value that starts the block, for the message
// words w xor dm. Before step t, a was the b after it, b its c rotated
// back, c its d, d its e, and e what the step's sum leaves.
func backward(s *[5]uint32, from int, w, dm *[80]uint32) {
	a, b, c, d, e := s[0], s[1], s[2], s[3], s[4]
	t := from - 1
	for ; t >= 60; t-- {
		sum := a
		a, b, c, d = b, bits.RotateLeft32(c, -30), d, e
		e = sum - bits.RotateLeft32(a, 5) - parity(b, c, d) - roundK[3] - (w[t] ^ dm[t])
	}
	for ; t >= 40; t-- {
		sum := a
		a, b, c, d = b, bits.RotateLeft32(c, -30), d, e
		e = sum - bits.RotateLeft32(a, 5) - majority(b, c, d) - roundK[2] - (w[t] ^ dm[t])
	}
	for ; t >= 20; t-- {
		sum := a
		a, b, c, d = b, bits.RotateLeft32(c, -30), d, e
		e = sum - bits.RotateLeft32(a, 5) - parity(b, c, d) - roundK[1] - (w[t] ^ dm[t])
	}
	for ; t >= 0; t-- {
		sum := a
		a, b, c, d = b, bits.RotateLeft32(c, -30), d, e
		e = sum - bits.RotateLeft32(a, 5) - choose(b, c, d) - roundK[0] - (w[t] ^ dm[t])
	}
	*s = [5]uint32{a, b, c, d, e}
}

// compressGo compresses one block into h step by step, the software twin
// of compress.
func compressGo(h *[5]uint32, block []byte) {
	var w [80]uint32
	expand(&w, block)
	s := *h
	forward(&s, 0, 80, &w, nil)
	for i := range h {
		h[i] += s[i]
	}
}

// detect recompresses a block from the step each vector in mask names
// (its working state there from mid, what compress wrote down, or else
// from h, the chaining value the block started from), with that
// vector's message difference, and says whether a recompression gave the
// block's output out: the second block of a two-block collision, the
// near-collision the first left behind cancelled.
func detect(block []byte, h *[5]uint32, words *[80]uint32, mid *[4][4]uint32, out *[5]uint32, mask uint32) bool {
	var w [80]uint32
	expandFrom(&w, block, words)
	// The vectors start from step 58 or 65 (ubc.SHA1_dvs's TestT); the
	// registers give the state before steps 56 and 64.
	s58 := fromLanes(&mid[0], &mid[1])
	forward(&s58, 56, 58, &w, nil)
	s65 := fromLanes(&mid[2], &mid[3])
	forward(&s65, 64, 65, &w, nil)
	dvs := ubc.SHA1_dvs()
	for i := range dvs {
		dv := &dvs[i]
		if dv.DvType == 0 {
			break
		}
		if mask&(1<<dv.MaskB) == 0 {
			continue
		}
		var at [5]uint32
		switch dv.TestT {
		case 58:
			at = s58
		case 65:
			at = s65
		default: // no published vector starts elsewhere
			at = *h
			forward(&at, 0, int(dv.TestT), &w, nil)
		}
		if recompress(&at, int(dv.TestT), &w, &dv.Dm) == *out {
			return true
		}
	}
	return false
}

// lanes is the working state s as the SHA instructions hold A B C D:
// D in lane 0, A in lane 3.
func lanes(s *[5]uint32) [4]uint32 { return [4]uint32{s[3], s[2], s[1], s[0]} }

// fromLanes is the working state from the registers now and four steps
// before: E is the A of four steps ago, rotated.
func fromLanes(now, before *[4]uint32) [5]uint32 {
	return [5]uint32{now[3], now[2], now[1], now[0], bits.RotateLeft32(before[3], 30)}
}

// recompress takes the working state before step t and the message w^dm
// back to the chaining value that would start it and forward to the end,
// and returns the block output that message and chaining value give.
func recompress(at *[5]uint32, t int, w, dm *[80]uint32) [5]uint32 {
	in, s := *at, *at
	// The shorter way first: the longer one's steps start while its last
	// ones are still in flight.
	forward(&s, t, 80, w, dm)
	backward(&in, t, w, dm)
	for i := range s {
		s[i] += in[i]
	}
	return s
}

// compressBlocksGo is compress in software: every whole block of p into h,
// writing down each block's starting chaining value and its message
// words in sc, as the assembly does.
func compressBlocksGo(h *[5]uint32, p []byte, sc *scratch) {
	for i := 0; len(p) >= BlockSize; i++ {
		sc.hs[i] = *h
		w := &sc.w[i]
		expand(w, p[:BlockSize])
		s := *h
		forward(&s, 0, 52, w, nil)
		sc.mid[i][1] = lanes(&s)
		forward(&s, 52, 56, w, nil)
		sc.mid[i][0] = lanes(&s)
		forward(&s, 56, 60, w, nil)
		sc.mid[i][3] = lanes(&s)
		forward(&s, 60, 64, w, nil)
		sc.mid[i][2] = lanes(&s)
		forward(&s, 64, 80, w, nil)
		for j := range h {
			h[j] += s[j]
		}
		p = p[BlockSize:]
	}
}
