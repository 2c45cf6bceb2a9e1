// Package sha1dc is SHA-1 with collision detection, as git names its objects
// (git's SHA1DC), on the CPU's SHA instructions.
//
// The compression runs on the SHA extensions (SHA-NI) many blocks at a time
// and writes down, for each block, the chaining value it started from and the
// words of its message schedule that the detection reads. Each block's words
// are then tested against the unavoidable bit conditions of the 32
// disturbance vectors (github.com/pjbgf/sha1cd/ubc, vectorised with AVX-512
// where the CPU has it). Only a block that meets every condition of some
// vector — about one in twenty of a repository's blocks (source text),
// almost none of random data — is recompressed in software with that
// vector's message difference, from the working state at the step the
// vector names (the assembly keeps the registers it needs); a recompression
// that reaches the same output is a collision attack. Such a block is then
// compressed twice more, as sha1collisiondetection's "safe hash" does, so
// the digest differs from the colliding twin's.
//
// The digests are github.com/pjbgf/sha1cd's, with one difference on
// purpose: sha1cd v0.7.0 recompresses from a misaligned state when a vector
// starts at step 58 (its backward loop renames the working variables for
// the steps it skips too), so 18 of the 32 vectors never fire there; here
// they do, as in sha1collisiondetection (TestRecompression: from every step,
// a recompression without a difference gives back the block's output). The
// published collisions use a step-65 vector, II(52,0), and both libraries
// detect them. Where the CPU lacks SHA-NI, New is sha1cd's hash, flaw
// included, for its AVX2 assembly: this package's compression in Go, which
// the tests run on every CPU, makes about 210 MB/s here, under a third of
// sha1cd's on SHA-NI (not measured on a CPU without: there is none here).
//
// Beside plain SHA-1 (crypto/sha1, on SHA-NI too), on an Intel Xeon with
// SHA-NI and AVX-512 (BenchmarkHash): about 0.6× its throughput on random
// data and 0.5× on source text, where sha1cd alone reaches 0.5× and 0.45×.
// The compression with its notes runs at 0.95× plain's; the rest is the
// per-block test of the conditions and the blocks that meet them.
package sha1dc

import (
	"encoding/binary"
	"hash"
	"sync"

	"github.com/pjbgf/sha1cd"
)

// Size is the length of a SHA-1 digest in bytes.
const Size = 20

// BlockSize is SHA-1's block length in bytes.
const BlockSize = 64

// batch is how many blocks one call of the compression handles; the
// scratch it writes for them is about 6 KiB.
const batch = 16

var iv = [5]uint32{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}

// New returns a collision-detecting SHA-1. Its CollisionResistantSum says
// whether the data carried a collision attack. Where the CPU lacks the SHA
// extensions it is github.com/pjbgf/sha1cd's.
func New() hash.Hash {
	if !accelerated {
		return sha1cd.New()
	}
	d := &digest{}
	d.Reset()
	return d
}

// state is what a digest carries from one Write to the next: small, so
// that Sum can copy it.
type state struct {
	h   [5]uint32
	buf [BlockSize]byte
	n   int
	len uint64
	col bool
}

// scratch is where the compression writes, for each block, the chaining
// value it started from, its message words and the working state at the
// steps detect starts from. At 6.5 KiB it is taken from a pool for each
// run of blocks rather than held by each hash: a verification makes one
// hash an object.
type scratch struct {
	w   [batch][80]uint32
	hs  [batch][5]uint32
	mid [batch][4][4]uint32
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

type digest struct {
	s state
}

func (d *digest) Reset() {
	d.s = state{h: iv}
}

func (d *digest) Size() int      { return Size }
func (d *digest) BlockSize() int { return BlockSize }

func (d *digest) Write(p []byte) (int, error) {
	n := len(p)
	d.s.write(p)
	return n, nil
}

func (s *state) write(p []byte) {
	s.len += uint64(len(p))
	if s.n > 0 {
		c := copy(s.buf[s.n:], p)
		s.n += c
		p = p[c:]
		if s.n < BlockSize {
			return
		}
		s.blocks(s.buf[:])
		s.n = 0
	}
	if whole := len(p) &^ (BlockSize - 1); whole > 0 {
		s.blocks(p[:whole])
		p = p[whole:]
	}
	s.n = copy(s.buf[:], p)
}

// blocks compresses whole blocks of p into s.h, checking each for the marks
// of a collision attack.
func (s *state) blocks(p []byte) {
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	for len(p) > 0 {
		n := min(len(p)/BlockSize, batch)
		compress(&s.h, p[:n*BlockSize], sc)
		next := n * BlockSize
		for i := range n {
			mask := dvMask(&sc.w[i])
			if mask == 0 {
				continue
			}
			out := s.h // what the block gave
			if i+1 < n {
				out = sc.hs[i+1]
			}
			block := p[i*BlockSize : (i+1)*BlockSize]
			if !detect(block, &sc.hs[i], &sc.w[i], &sc.mid[i], &out, mask) {
				continue
			}
			// The safe hash: the colliding block twice more, and every
			// later block of the batch again from there.
			s.col = true
			compressGo(&out, block)
			compressGo(&out, block)
			s.h = out
			next = (i + 1) * BlockSize
			break
		}
		p = p[next:]
	}
}

func (d *digest) Sum(in []byte) []byte {
	sum, _ := d.CollisionResistantSum(in)
	return sum
}

// CollisionResistantSum appends the digest to in and says whether the data
// carried a collision attack (github.com/pjbgf/sha1cd's interface).
func (d *digest) CollisionResistantSum(in []byte) ([]byte, bool) {
	s := d.s
	var pad [BlockSize + 8]byte
	pad[0] = 0x80
	bits := s.len << 3
	k := (BlockSize + 56 - int(s.len%BlockSize)) % BlockSize
	if k == 0 {
		k = BlockSize
	}
	binary.BigEndian.PutUint64(pad[k:], bits)
	s.write(pad[:k+8])
	var out [Size]byte
	for i, v := range s.h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return append(in, out[:]...), s.col
}

// Sum returns the collision-detecting SHA-1 of data, and whether data
// carried a collision attack.
func Sum(data []byte) ([Size]byte, bool) {
	h := New()
	h.Write(data)
	var out [Size]byte
	sum, col := h.(sha1cd.CollisionResistantHash).CollisionResistantSum(out[:0])
	copy(out[:], sum)
	return out, col
}
