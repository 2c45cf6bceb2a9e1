package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-durable/git-durable/internal/boot"
	"github.com/git-durable/git-durable/object"
)

func TestRecordRoundTrip(t *testing.T) {
	if boot.ID() == "" {
		t.Skip("the system does not say which boot runs: no record is written")
	}
	objects := t.TempDir()
	if rec, err := Read(objects, object.SHA1); err == nil || rec.ThisBoot() {
		t.Fatalf("a record where none was written: %+v", rec)
	}
	a, _ := object.ParseID("0123456789abcdef0123456789abcdef01234567")
	b, _ := object.ParseID("89abcdef0123456789abcdef0123456789abcdef")
	Write(objects, []object.ID{a, b}, map[object.ID]object.Type{a: object.Blob})
	rec, err := Read(objects, object.SHA1)
	if err != nil || !rec.ThisBoot() || !slices.Equal(rec.Broken, []object.ID{a, b}) {
		t.Fatalf("read back %+v, %v", rec, err)
	}
	if rec.Types[a] != object.Blob || len(rec.Types) != 1 {
		t.Errorf("types %v, want %s a blob", rec.Types, a)
	}
	if rec, _ := Read(objects, object.SHA256); len(rec.Broken) != 0 {
		t.Errorf("SHA-1 ids read as SHA-256: %v", rec.Broken)
	}
	if left, _ := filepath.Glob(filepath.Join(objects, "info", "tmp_*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestAnotherBoot: the record of a boot before the running one (a crash
// came between) says that the next session checks again.
func TestAnotherBoot(t *testing.T) {
	objects := t.TempDir()
	if err := os.MkdirAll(filepath.Join(objects, "info"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(objects, "info", "durable"), []byte("boot a-boot-before-the-crash\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	rec, err := Read(objects, object.SHA1)
	if err != nil || rec.Boot != "a-boot-before-the-crash" {
		t.Fatalf("read %+v, %v", rec, err)
	}
	if rec.ThisBoot() {
		t.Error("checked this boot, by the record of another")
	}
}
