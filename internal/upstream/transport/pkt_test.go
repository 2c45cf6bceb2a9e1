package transport

import (
	"bufio"
	"strings"
	"testing"
)

// TestPktLen: a length's digit is what git's hexval takes, 0-9, a-f and
// A-F, and nothing else (0x10-0x19 were read as digits once: a bit
// masked in for the upper case).
func TestPktLen(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
		for at := 0; at < 4; at++ {
			h := []byte("0010")
			h[at] = byte(c)
			if _, ok := PktLen(h); ok != want {
				t.Fatalf("PktLen(%q): %v, want %v", h, ok, want)
			}
		}
	}
	if n, ok := PktLen([]byte("0A1f")); !ok || n != 0x0a1f {
		t.Errorf("PktLen(0A1f) = %#x, %v", n, ok)
	}
	if _, ok := PktLen([]byte("001")); ok {
		t.Error("three digits read as a length")
	}
}

// TestReadPacket: a line, an upper-case length, the packets without a
// payload, and the lengths git refuses, in the words of the error.
func TestReadPacket(t *testing.T) {
	for _, tc := range []struct {
		in, payload string
		special     int
		err         string
	}{
		{in: "0009line\n", payload: "line\n"},
		{in: "000Dpackfile\n", payload: "packfile\n"},
		{in: "0004", payload: ""},
		{in: "0000", special: FlushPkt},
		{in: "0001", special: DelimPkt},
		{in: "0002", special: EndPkt},
		{in: "0003", err: "protocol error: bad line length 3"},
		{in: "\x10\x10\x10\x10", err: "protocol error: bad line length character: ????"},
		{in: "00g9line\n", err: "protocol error: bad line length character: 00g9"},
		{in: "fff3" + strings.Repeat("a", 0xfff3-4), payload: strings.Repeat("a", 0xfff3-4)},
		{in: "fff4" + strings.Repeat("a", 0xfff4-4), err: "protocol error: bad line length 65520"},
		{in: "ffff", err: "protocol error: bad line length 65531"},
		{in: "000aline", err: "the upstream's answer ended inside a line: unexpected EOF"},
		{in: "00", err: "the upstream's answer ended inside a line: unexpected EOF"},
		{in: "000eERR denied\n", err: "denied"}, // a *pktline.ErrorLine
	} {
		var buf []byte
		p, special, err := ReadPacket(bufio.NewReader(strings.NewReader(tc.in)), &buf)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.err) || (tc.err == "") != (err == nil) {
			t.Errorf("%q: error %q, want %q", tc.in, got, tc.err)
			continue
		}
		if err == nil && (string(p) != tc.payload || special != tc.special || tc.special == 0 && p == nil) {
			t.Errorf("%q: %q, %d; want %q, %d", tc.in, p, special, tc.payload, tc.special)
		}
	}
}

// TestIsV2: a first line "version 2" however git would read it — its
// length in either case, with or without its newline — and nothing else.
func TestIsV2(t *testing.T) {
	for in, want := range map[string]bool{
		"000eversion 2\n":                    true,
		"000Eversion 2\n":                    true,
		"000dversion 2":                      true,
		"000eversion 2\n0014command=ls-refs": true,
		"000eversion 1\n":                    false,
		"000fversion 2\n\n":                  false,
		"001e# service=git-upload-pack\n":    false,
		"0000":                               false,
		"00":                                 false,
		"":                                   false,
	} {
		got, err := IsV2(bufio.NewReader(strings.NewReader(in)))
		if err != nil || got != want {
			t.Errorf("IsV2(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
}
