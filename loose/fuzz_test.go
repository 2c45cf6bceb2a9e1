package loose_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// TestDecodeRejectsTrailingGarbage is a regression test: bytes after the
// zlib stream make git fsck report "garbage at end of loose object", so
// such a file must count as broken (and be repaired), not as good.
func TestDecodeRejectsTrailingGarbage(t *testing.T) {
	good := deflate("blob 3\x00abc")
	if _, _, err := loose.Decode(good); err != nil {
		t.Fatal(err)
	}
	for _, tail := range []string{"x", "\x00", "garbage", string(good)} {
		raw := append(append([]byte{}, good...), tail...)
		if _, _, err := loose.Decode(raw); !errors.Is(err, loose.ErrCorrupt) {
			t.Errorf("%q after the stream: %v", tail, err)
		}
	}
}

// FuzzDecode decodes arbitrary bytes as a loose object file. It must not
// panic; what it accepts must re-encode to an object that decodes to the
// same type and data, and must stop being accepted with its last byte cut
// off or a byte added (the file is exactly one complete zlib stream).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"blob 3\x00abc", "tree 0\x00", "commit 5\x00x\ny\nz", "tag 1\x00\x00"} {
		f.Add(deflate(s))
	}
	f.Add([]byte{})
	f.Add([]byte("not zlib"))
	f.Add(deflate("blob 1073741824\x00abcdef"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		typ, data, err := loose.Decode(raw)
		if err != nil {
			if !errors.Is(err, loose.ErrCorrupt) {
				t.Fatalf("error outside ErrCorrupt: %v", err)
			}
			return
		}
		hdr := object.Header(nil, typ, int64(len(data)))
		typ2, data2, err := loose.Decode(deflate(string(hdr) + string(data)))
		if err != nil || typ2 != typ || !bytes.Equal(data2, data) {
			t.Fatalf("re-encoded %v %q: %v %q %v", typ, data, typ2, data2, err)
		}
		if _, _, err := loose.Decode(raw[:len(raw)-1]); err == nil {
			t.Fatalf("accepted without its last byte")
		}
		if _, _, err := loose.Decode(append(raw[:len(raw):len(raw)], 0)); err == nil {
			t.Fatalf("accepted with a byte added")
		}
	})
}
