//go:build linux

package blocktest

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/object"
)

func deflate(s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

func TestCheckObjects(t *testing.T) {
	dir := t.TempDir()
	put := func(id string, data []byte) {
		p := filepath.Join(dir, id[:2], id[2:])
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	// `printf hello | git hash-object --stdin`
	const hello = "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0"
	const other = "ce013625030ba8dba906f756967f9e9ca394464a"
	put(hello, deflate("blob 5\x00hello"))
	put(other, deflate("blob 5\x00howdy"))                          // wrong content
	put("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", nil)            // empty file
	put("0123456789012345678901234567890123456789", []byte("junk")) // not zlib
	put("aa/tmp_obj_x", []byte("anything"))
	put("ab/notes.txt", []byte("ignored"))

	res, err := CheckObjects(dir, object.SHA1)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Good) != 1 || !res.Good[hello] || res.Temps != 1 || len(res.Broken) != 3 {
		t.Fatalf("%+v", res)
	}
	if !strings.Contains(strings.Join(res.Broken, "\n"), "ce/013625030ba8dba906f756967f9e9ca394464a: hashes to 729e5cf") {
		t.Errorf("wrong content not named: %v", res.Broken)
	}
	if m := res.Missing([]string{other, hello}); !slices.Equal(m, []string{other}) {
		t.Errorf("Missing = %v", m)
	}
	none, err := CheckObjects(filepath.Join(dir, "nowhere"), object.SHA1)
	if err != nil || len(none.Good)+len(none.Broken) != 0 {
		t.Errorf("missing directory: %+v, %v", none, err)
	}
}
