package packtest

// Delta builds delta instructions.
type Delta struct {
	ops []byte
}

// Copy appends a copy of size bytes at off of the base.
func (d *Delta) Copy(off, size uint32) *Delta {
	cmd := byte(0x80)
	var args []byte
	for i := 0; i < 4; i++ {
		if b := byte(off >> (8 * i)); b != 0 {
			cmd |= 1 << i
			args = append(args, b)
		}
	}
	for i := 0; i < 3; i++ {
		if b := byte(size >> (8 * i)); b != 0 && size != 0x10000 {
			cmd |= 0x10 << i
			args = append(args, b)
		}
	}
	d.ops = append(append(d.ops, cmd), args...)
	return d
}

// Insert appends literal data (any length; split into 127-byte inserts).
func (d *Delta) Insert(data []byte) *Delta {
	for len(data) > 0 {
		n := min(len(data), 127)
		d.ops = append(append(d.ops, byte(n)), data[:n]...)
		data = data[n:]
	}
	return d
}

// Raw appends raw instruction bytes.
func (d *Delta) Raw(b ...byte) *Delta {
	d.ops = append(d.ops, b...)
	return d
}

// Bytes returns the delta with a header declaring baseSize and resultSize.
func (d *Delta) Bytes(baseSize, resultSize uint64) []byte {
	out := appendSize(nil, baseSize)
	out = appendSize(out, resultSize)
	return append(out, d.ops...)
}

func appendSize(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}
