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
	for i := range 16 {
		w[i] = binary.BigEndian.Uint32(block[4*i:])
	}
	for i := 16; i < 80; i++ {
		w[i] = bits.RotateLeft32(w[i-3]^w[i-8]^w[i-14]^w[i-16], 1)
	}
}

// f is SHA-1's boolean function of step t.
func f(t int, b, c, d uint32) uint32 {
	switch {
	case t < 20:
		return (b & c) | (^b & d)
	case t < 40, t >= 60:
		return b ^ c ^ d
	}
	return (b & c) | (b & d) | (c & d)
}

// step runs step t of the compression on the working state s (a, b, c, d, e).
func step(s *[5]uint32, t int, w uint32) {
	a, b, c, d, e := s[0], s[1], s[2], s[3], s[4]
	tmp := bits.RotateLeft32(a, 5) + f(t, b, c, d) + e + roundK[t/20] + w
	*s = [5]uint32{tmp, a, bits.RotateLeft32(b, 30), c, d}
}

// unstep undoes step t: from the state after it, the state before.
func unstep(s *[5]uint32, t int, w uint32) {
	a := s[1]
	b := bits.RotateLeft32(s[2], -30)
	c, d := s[3], s[4]
	e := s[0] - bits.RotateLeft32(a, 5) - f(t, b, c, d) - roundK[t/20] - w
	*s = [5]uint32{a, b, c, d, e}
}

// compressGo compresses one block into h step by step, the software twin
// of compress.
func compressGo(h *[5]uint32, block []byte) {
	var w [80]uint32
	expand(&w, block)
	s := *h
	for t := range 80 {
		step(&s, t, w[t])
	}
	for i := range h {
		h[i] += s[i]
	}
}

// detect compresses block from the chaining value h in software, keeping
// the working state before every step, and recompresses it from the step
// each vector in mask names with that vector's message difference. It
// returns the block's output and whether a recompression met it: the second
// block of a two-block collision, the near-collision the first left behind
// cancelled.
func detect(h *[5]uint32, block []byte, mask uint32) ([5]uint32, bool) {
	var w [80]uint32
	expand(&w, block)
	var states [81][5]uint32
	states[0] = *h
	for t := range 80 {
		states[t+1] = states[t]
		step(&states[t+1], t, w[t])
	}
	var out [5]uint32
	for i := range out {
		out[i] = h[i] + states[80][i]
	}
	for _, dv := range ubc.SHA1_dvs() {
		if dv.DvType == 0 {
			break
		}
		if mask&(1<<dv.MaskB) == 0 {
			continue
		}
		if recompress(&states[dv.TestT], int(dv.TestT), &w, &dv.Dm) == out {
			return out, true
		}
	}
	return out, false
}

// recompress takes the working state before step t and the message w^dm
// back to the chaining value that would start it and forward to the end,
// and returns the block output that message and chaining value give.
func recompress(at *[5]uint32, t int, w, dm *[80]uint32) [5]uint32 {
	in := *at
	for i := t - 1; i >= 0; i-- {
		unstep(&in, i, w[i]^dm[i])
	}
	s := *at
	for i := t; i < 80; i++ {
		step(&s, i, w[i]^dm[i])
	}
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
		expand(&sc.w[i], p[:BlockSize])
		compressGo(h, p[:BlockSize])
		p = p[BlockSize:]
	}
}
