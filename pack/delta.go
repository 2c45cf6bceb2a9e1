package pack

// DeltaHeader returns the base size and result size that start a delta, and
// the instructions after them.
func DeltaHeader(delta []byte) (baseSize, resultSize uint64, ops []byte, err error) {
	baseSize, delta, err = deltaSize(delta)
	if err != nil {
		return 0, 0, nil, err
	}
	resultSize, delta, err = deltaSize(delta)
	return baseSize, resultSize, delta, err
}

func deltaSize(b []byte) (uint64, []byte, error) {
	var v uint64
	for i, shift := 0, 0; i < len(b); i, shift = i+1, shift+7 {
		if shift > 63 {
			break
		}
		v |= uint64(b[i]&0x7f) << shift
		if b[i]&0x80 == 0 {
			return v, b[i+1:], nil
		}
	}
	return 0, nil, ErrDeltaCorrupt
}

// ApplyDelta applies delta to base and returns the result, reusing dst's
// storage when it is large enough. Every bound is checked before anything is
// allocated: the base size, each copy range, each insert, and the result
// size, so a hostile delta costs no more memory than the result it really
// describes.
func ApplyDelta(dst, base, delta []byte) ([]byte, error) {
	baseSize, resultSize, ops, err := DeltaHeader(delta)
	if err != nil {
		return nil, err
	}
	if baseSize != uint64(len(base)) {
		return nil, ErrDeltaBaseSize
	}
	n, err := walkDelta(ops, base, nil)
	if err != nil {
		return nil, err
	}
	if n != resultSize {
		return nil, ErrDeltaCorrupt
	}
	if uint64(cap(dst)) < n {
		dst = make([]byte, 0, n)
	}
	if _, err := walkDelta(ops, base, dst[:0]); err != nil {
		return nil, err
	}
	return dst[:n], nil
}

// walkDelta runs the delta instructions. With out == nil it only checks them
// and counts the result; otherwise it appends the result to out, which must
// have room for all of it.
func walkDelta(ops, base, out []byte) (uint64, error) {
	var n uint64
	for i := 0; i < len(ops); {
		cmd := ops[i]
		i++
		switch {
		case cmd&0x80 != 0:
			var off, size uint64
			for bit, shift := byte(1), 0; bit <= 8; bit, shift = bit<<1, shift+8 {
				if cmd&bit != 0 {
					if i >= len(ops) {
						return 0, ErrDeltaCorrupt
					}
					off |= uint64(ops[i]) << shift
					i++
				}
			}
			for bit, shift := byte(0x10), 0; bit <= 0x40; bit, shift = bit<<1, shift+8 {
				if cmd&bit != 0 {
					if i >= len(ops) {
						return 0, ErrDeltaCorrupt
					}
					size |= uint64(ops[i]) << shift
					i++
				}
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(base)) {
				return 0, ErrDeltaCorrupt
			}
			if out != nil {
				out = append(out, base[off:off+size]...)
			}
			n += size
		case cmd != 0:
			size := int(cmd)
			if i+size > len(ops) {
				return 0, ErrDeltaCorrupt
			}
			if out != nil {
				out = append(out, ops[i:i+size]...)
			}
			i += size
			n += uint64(size)
		default:
			return 0, ErrDeltaOpcode
		}
	}
	return n, nil
}
