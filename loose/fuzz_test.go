package loose_test

import (
	"errors"
	"testing"

	"github.com/git-durable/git-durable/loose"
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
