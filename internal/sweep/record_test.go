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
	objects := t.TempDir()
	if _, err := Read(objects, object.SHA1); err == nil {
		t.Fatal("a record where none was written")
	}
	a, _ := object.ParseID("0123456789abcdef0123456789abcdef01234567")
	b, _ := object.ParseID("89abcdef0123456789abcdef0123456789abcdef")
	Write(objects, Record{Boot: "a-boot", Broken: []object.ID{a, b}, Types: map[object.ID]object.Type{a: object.Blob}})
	rec, err := Read(objects, object.SHA1)
	if err != nil || rec.Boot != "a-boot" || !slices.Equal(rec.Broken, []object.ID{a, b}) {
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

func TestThisBoot(t *testing.T) {
	now := boot.ID()
	if now == "" {
		t.Skip("the system does not say which boot runs")
	}
	objects := t.TempDir()
	if ok, _ := ThisBoot(objects, object.SHA1); ok {
		t.Error("checked this boot, without a record")
	}
	Write(objects, Record{Boot: "a-boot-before-the-crash"})
	if ok, _ := ThisBoot(objects, object.SHA1); ok {
		t.Error("checked this boot, by the record of another")
	}
	Write(objects, Record{Boot: now})
	if ok, _ := ThisBoot(objects, object.SHA1); !ok {
		t.Error("not checked this boot, by its own record")
	}
	if err := os.Remove(filepath.Join(objects, "info", "durable")); err != nil {
		t.Fatal(err)
	}
}
