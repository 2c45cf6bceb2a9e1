package object

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// Known ids, as git hash-object computes them.
func TestSumKnownAnswers(t *testing.T) {
	tests := []struct {
		f    Format
		t    Type
		data string
		want string
	}{
		{SHA1, Blob, "", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
		{SHA1, Blob, "hello\n", "ce013625030ba8dba906f756967f9e9ca394464a"},
		{SHA1, Tree, "", "4b825dc642cb6eb9a060e54bf8d69288fbee4904"},
		{SHA256, Blob, "", "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"},
		{SHA256, Tree, "", "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"},
	}
	for _, tt := range tests {
		id, err := tt.f.Sum(tt.t, []byte(tt.data))
		if err != nil || id.String() != tt.want {
			t.Errorf("%v %v %q: %v %v, want %s", tt.f, tt.t, tt.data, id, err, tt.want)
		}
		back, err := ParseID(tt.want)
		if err != nil || back != id || back.Size() != tt.f.Size() {
			t.Errorf("ParseID(%s) = %v %v", tt.want, back, err)
		}
	}
}

func TestIDs(t *testing.T) {
	for _, bad := range []string{"", "abc", strings.Repeat("g", 40), strings.Repeat("a", 41)} {
		if _, err := ParseID(bad); err == nil {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
	a, _ := ParseID(strings.Repeat("0", 39) + "1")
	b, _ := ParseID(strings.Repeat("0", 39) + "2")
	if a.Compare(b) >= 0 || b.Compare(a) <= 0 || a.Compare(a) != 0 {
		t.Error("Compare")
	}
	if d, rest := a.Shard(); d != "00" || len(rest) != 38 {
		t.Errorf("Shard %q %q", d, rest)
	}
	if _, err := IDFromBytes(make([]byte, 21)); err == nil {
		t.Error("IDFromBytes accepted 21 bytes")
	}
	if !(ID{}).IsZero() || a.IsZero() {
		t.Error("IsZero")
	}
}

// TestSetBytes checks that an id set in place (and so one IDFromBytes
// returns) equals the one ParseID reads from the same bytes in hex,
// whatever the id held before, and that a bad size leaves the zero ID.
func TestSetBytes(t *testing.T) {
	long := ID{n: 32}
	for i := range long.b {
		long.b[i] = 0xff
	}
	for _, size := range []int{20, 32} {
		raw := make([]byte, size)
		for i := range raw {
			raw[i] = byte(i + 1)
		}
		want, err := ParseID(hex.EncodeToString(raw))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := IDFromBytes(raw); err != nil || got != want {
			t.Errorf("IDFromBytes of %d bytes = %v, %v, want %v", size, got, err, want)
		}
		for _, before := range []ID{{}, long} {
			id := before
			if !id.SetBytes(raw) || id != want {
				t.Errorf("SetBytes of %d bytes over %v = %v, want %v", size, before, id, want)
			}
		}
	}
	id := long
	if id.SetBytes(make([]byte, 21)) || !id.IsZero() {
		t.Errorf("SetBytes of 21 bytes = %v", id)
	}
}

func TestTypes(t *testing.T) {
	for _, typ := range []Type{Commit, Tree, Blob, Tag} {
		back, ok := ParseType([]byte(typ.String()))
		if !ok || back != typ || !typ.IsObject() || typ.IsDelta() {
			t.Errorf("%v", typ)
		}
	}
	if _, ok := ParseType([]byte("ofs-delta")); ok || !OfsDelta.IsDelta() || OfsDelta.IsObject() {
		t.Error("delta types")
	}
	if f, err := ParseFormat("sha256"); err != nil || f != SHA256 || f.String() != "sha256" {
		t.Error("ParseFormat")
	}
	if _, err := ParseFormat("md5"); err == nil {
		t.Error("ParseFormat(md5) accepted")
	}
}

// TestNewChecksum: the file checksum is the format's hash, as git computes
// a trailer.
func TestNewChecksum(t *testing.T) {
	for _, f := range []Format{SHA1, SHA256} {
		a, b := f.New(), f.NewChecksum()
		a.Write([]byte("PACK data"))
		b.Write([]byte("PACK data"))
		if !bytes.Equal(a.Sum(nil), b.Sum(nil)) || b.Size() != f.Size() {
			t.Errorf("%v: %x, %x", f, a.Sum(nil), b.Sum(nil))
		}
	}
}
