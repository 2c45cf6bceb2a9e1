package pack

import (
	"bytes"
	"errors"
	"testing"
)

func TestHeaderRoundTrip(t *testing.T) {
	for _, h := range []Header{{2, 0}, {3, 1}, {2, 1<<32 - 1}} {
		b := AppendHeader([]byte("x"), h)
		got, err := ParseHeader(b[1:])
		if err != nil || got != h || len(b) != 1+HeaderSize {
			t.Errorf("%+v: %x → %+v, %v", h, b, got, err)
		}
	}
	if _, err := ParseHeader([]byte("PACK\x00\x00\x00\x02\x00\x00")); !errors.Is(err, ErrSignature) {
		t.Errorf("short: %v", err)
	}
	if _, err := ParseHeader([]byte("KCAP\x00\x00\x00\x02\x00\x00\x00\x01")); !errors.Is(err, ErrSignature) {
		t.Errorf("signature: %v", err)
	}
	var ve VersionError
	if _, err := ParseHeader(AppendHeader(nil, Header{Version: 4})); !errors.As(err, &ve) || ve != 4 {
		t.Errorf("version: %v", err)
	}
}

// TestAppendOfsDistance encodes base distances around every byte boundary
// and reads each back as the reader reads an OFS_DELTA's: the same
// distance, and no byte left over.
func TestAppendOfsDistance(t *testing.T) {
	for _, d := range []int64{1, 127, 128, 129, 16511, 16512, 16513, 1 << 21, 1<<40 + 3, 1<<62 - 1} {
		enc := AppendOfsDistance([]byte{0xaa}, d)
		if enc[0] != 0xaa {
			t.Fatalf("%d: the bytes before were changed", d)
		}
		br := bytes.NewReader(enc[1:])
		e := Entry{Offset: d + 12}
		if err := readOfsBase(br, &e); err != nil || e.BaseOffset != 12 || br.Len() != 0 {
			t.Errorf("%d: encoded % x, read back base %d (want 12), %d bytes left, %v", d, enc[1:], e.BaseOffset, br.Len(), err)
		}
	}
}
