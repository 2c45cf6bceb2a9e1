package fsck

import "math"

// Git parses commits and tags with C string functions that stop at a NUL
// and may read one byte past the data (git's buffers end in a NUL). cbuf
// gives the same view without reading out of bounds.

// cbuf views object data the way git's C code sees it: as a NUL-terminated
// string. Reading past the end yields NUL, so a scan stops there as in C.
type cbuf []byte

// at returns the byte at i, or 0 outside the buffer.
func (b cbuf) at(i int) byte {
	if i < 0 || i >= len(b) {
		return 0
	}
	return b[i]
}

// hasPrefixAt reports whether the C string at i starts with s.
func (b cbuf) hasPrefixAt(i int, s string) bool {
	for j := 0; j < len(s); j++ {
		if b.at(i+j) != s[j] {
			return false
		}
	}
	return true
}

// indexC returns the index of the first c at or after i in the C string,
// or -1 when its terminating NUL comes first (C's strchr).
func (b cbuf) indexC(i int, c byte) int {
	for ; i < len(b) && b[i] != 0; i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// skipUntilAny returns the index of the first byte at or after i that is
// NUL or one of set (i + C's strcspn).
func (b cbuf) skipUntilAny(i int, set string) int {
	for ; ; i++ {
		c := b.at(i)
		if c == 0 {
			return i
		}
		for j := 0; j < len(set); j++ {
			if c == set[j] {
				return i
			}
		}
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// strtoumax mimics glibc's strtoumax(p, &end, 10): it skips C-locale white
// space, takes an optional sign and decimal digits. With no digits end is
// p. Overflow saturates at MaxUint64; a minus sign negates modulo 2^64.
func (b cbuf) strtoumax(p int) (v uint64, end int, overflow bool) {
	i := p
	for {
		c := b.at(i)
		if c == ' ' || (c >= '\t' && c <= '\r') {
			i++
			continue
		}
		break
	}
	neg := false
	if c := b.at(i); c == '+' || c == '-' {
		neg = c == '-'
		i++
	}
	if !isDigit(b.at(i)) {
		return 0, p, false
	}
	for ; isDigit(b.at(i)); i++ {
		d := uint64(b.at(i) - '0')
		if v > (math.MaxUint64-d)/10 {
			overflow = true
		}
		v = v*10 + d
	}
	if overflow {
		return math.MaxUint64, i, true
	}
	if neg {
		v = -v
	}
	return v, i, false
}
