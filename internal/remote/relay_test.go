package remote

import (
	"bytes"
	"strings"
	"testing"
)

// TestRelay checks the upstream's messages are shown as git's sideband.c
// shows them: "remote: " before each line, the clear-to-end suffix after
// non-empty ones, lines split across packets joined.
func TestRelay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		packets []string
		suffix  string
		want    string
	}{
		{"progress", []string{"Counting objects:  50% (1/2)\r", "Counting objects: 100% (2/2), done.\n"}, dumbSuffix,
			"remote: Counting objects:  50% (1/2)" + dumbSuffix + "\rremote: Counting objects: 100% (2/2), done." + dumbSuffix + "\n"},
		{"split", []string{"Total 3 (del", "ta 0)\n"}, ansiSuffix, "remote: Total 3 (delta 0)" + ansiSuffix + "\n"},
		{"eol in the next packet", []string{"done.", "\n"}, ansiSuffix, "remote: done." + ansiSuffix + "\n"},
		{"two lines", []string{"a\nb\n"}, ansiSuffix, "remote: a" + ansiSuffix + "\nremote: b" + ansiSuffix + "\n"},
		{"empty line", []string{"\n"}, ansiSuffix, "remote: \n"},
		{"unterminated", []string{"bye"}, dumbSuffix, "remote: bye\n"},
		{"control characters masked", []string{"a\x1b]0;title\x07b\x1b[2Jc\x7f\td\n"}, dumbSuffix,
			"remote: a^[]0;title^Gb^[[2Jc^?\td" + dumbSuffix + "\n"},
		{"colour kept", []string{"\x1b[1;31merror\x1b[m: x\n"}, dumbSuffix, "remote: \x1b[1;31merror\x1b[m: x" + dumbSuffix + "\n"},
		{"masked while pending", []string{"\x1b[H", "x\n"}, dumbSuffix, "remote: ^[[Hx" + dumbSuffix + "\n"},
	} {
		var b bytes.Buffer
		r := &relay{w: &b, suffix: tc.suffix}
		for _, p := range tc.packets {
			if n, err := r.Write([]byte(p)); n != len(p) || err != nil {
				t.Fatalf("%s: Write = %d, %v", tc.name, n, err)
			}
		}
		r.flush()
		if b.String() != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, b.String(), tc.want)
		}
	}
}

// TestRelayBounded checks a message without a line end is not held
// without bound.
func TestRelayBounded(t *testing.T) {
	var b bytes.Buffer
	r := &relay{w: &b, suffix: dumbSuffix}
	chunk := strings.Repeat("x", 1000)
	for i := 0; i < 200; i++ {
		r.Write([]byte(chunk))
	}
	if len(r.pending) > maxPending+len(chunk) {
		t.Fatalf("%d bytes held", len(r.pending))
	}
	if b.Len() == 0 {
		t.Fatal("nothing written")
	}
}

// FuzzRelay feeds arbitrary packets: every line shown starts with
// "remote: ", and nothing is held beyond the bound.
func FuzzRelay(f *testing.F) {
	f.Add([]byte("Counting objects: 1\rCounting"), []byte(" objects: 2, done.\n"))
	f.Add([]byte("\n\r\n"), []byte(""))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var out bytes.Buffer
		r := &relay{w: &out, suffix: dumbSuffix}
		r.Write(a)
		r.Write(b)
		r.flush()
		if len(r.pending) != 0 {
			t.Fatal("pending after flush")
		}
		for _, l := range strings.FieldsFunc(out.String(), func(c rune) bool { return c == '\n' || c == '\r' }) {
			if !strings.HasPrefix(l, "remote: ") {
				t.Fatalf("line %q", l)
			}
		}
	})
}
