package fsck

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/git-durable/git-durable/object"
)

// bigTree is a tree of n entries in git's modes, as a source tree lists
// them: mostly files, some directories, a symlink and a gitlink.
func bigTree(f object.Format, n int) []byte {
	var entries []string
	modes := []string{"100644", "100644", "100755", "40000", "100644", "120000", "100644", "40000", "160000"}
	for i := range n {
		id := hexID(f, object.Blob, fmt.Sprint(i))
		entries = append(entries, modes[i%len(modes)], fmt.Sprintf("name-%04d.c", i), id)
	}
	return rawTree(entries...)
}

// FuzzTreeLinks checks treeLinks against the path through decodeEntry
// alone on any data: the same links, the same error and the same partial
// flag.
func FuzzTreeLinks(f *testing.F) {
	e := hexID(object.SHA1, object.Blob, "")
	f.Add(bigTree(object.SHA1, 20))
	f.Add(rawTree("100644", "a", e, "0100644", "b", e, "40000", "c", e, "1100644", "d", e, "160000", "e", e))
	f.Add([]byte("100644 \x00" + string(make([]byte, 20))))
	f.Add([]byte("40000 a\x00abc"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fm := range []object.Format{object.SHA1, object.SHA256} {
			got, gerr := treeLinks(nil, data, fm.Size())
			want, werr := walkTree(nil, data, fm.Size(), false)
			if !slices.Equal(got, want) {
				t.Fatalf("%v: links %v, want %v", fm, got, want)
			}
			var gp, wp *ParseError
			if errors.As(gerr, &gp) != errors.As(werr, &wp) || (gp != nil && *gp != *wp) || (gerr == nil) != (werr == nil) {
				t.Fatalf("%v: error %v, want %v", fm, gerr, werr)
			}
		}
	})
}

// BenchmarkTreeLinks parses a tree of 400 entries, the size of git.git's
// top-level tree; a clone parses millions of entries for its closure.
func BenchmarkTreeLinks(b *testing.B) {
	data := bigTree(object.SHA1, 400)
	var out []Link
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var err error
		if out, err = treeLinks(out[:0], data, 20); err != nil {
			b.Fatal(err)
		}
	}
}
