package pack_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/pack"
)

func TestApplyDelta(t *testing.T) {
	base := bytes.Repeat([]byte("0123456789"), 10000)
	tests := []struct {
		name  string
		delta []byte
		want  []byte
		err   error
	}{
		{"copy and insert", (&packtest.Delta{}).Copy(10, 5).Insert([]byte("xy")).Copy(0, 3).Bytes(100000, 10),
			[]byte("01234xy012"), nil},
		{"copy 64k default", (&packtest.Delta{}).Copy(0, 0x10000).Bytes(100000, 0x10000), base[:0x10000], nil},
		{"empty result", (&packtest.Delta{}).Bytes(100000, 0), []byte{}, nil},
		{"base size", (&packtest.Delta{}).Copy(0, 3).Bytes(99999, 3), nil, pack.ErrDeltaBaseSize},
		{"opcode 0", (&packtest.Delta{}).Raw(0).Bytes(100000, 0), nil, pack.ErrDeltaOpcode},
		{"copy past base", (&packtest.Delta{}).Copy(99999, 2).Bytes(100000, 2), nil, pack.ErrDeltaCorrupt},
		{"insert past delta", (&packtest.Delta{}).Raw(5, 'a').Bytes(100000, 5), nil, pack.ErrDeltaCorrupt},
		{"copy args missing", (&packtest.Delta{}).Raw(0x91).Bytes(100000, 5), nil, pack.ErrDeltaCorrupt},
		{"result too short", (&packtest.Delta{}).Copy(0, 3).Bytes(100000, 4), nil, pack.ErrDeltaCorrupt},
		{"result too long", (&packtest.Delta{}).Copy(0, 5).Bytes(100000, 4), nil, pack.ErrDeltaCorrupt},
		{"huge claim", (&packtest.Delta{}).Copy(0, 5).Bytes(100000, 1<<40), nil, pack.ErrDeltaCorrupt},
		{"no header", []byte{0x80}, nil, pack.ErrDeltaCorrupt},
		{"size overflow", bytes.Repeat([]byte{0xff}, 12), nil, pack.ErrDeltaCorrupt},
	}
	for _, tt := range tests {
		got, err := pack.ApplyDelta(nil, base, tt.delta)
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: err %v, want %v", tt.name, err, tt.err)
			continue
		}
		if err == nil && !bytes.Equal(got, tt.want) {
			t.Errorf("%s: got %q", tt.name, got)
		}
	}
}

func TestApplyDeltaReusesDst(t *testing.T) {
	base := []byte("abcdef")
	dst := make([]byte, 0, 64)
	got, err := pack.ApplyDelta(dst, base, (&packtest.Delta{}).Copy(1, 3).Bytes(6, 3))
	if err != nil || string(got) != "bcd" || &got[0] != &dst[:1][0] {
		t.Errorf("got %q %v", got, err)
	}
}
