package pack

import (
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
