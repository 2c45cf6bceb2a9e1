//go:build linux

package blocktest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/object"
)

// objectImage makes a 16 MB ext4 image holding three intact loose objects
// under repo/objects and returns the image's path and the objects' ids.
func objectImage(t *testing.T) (string, []string) {
	t.Helper()
	fsys := Ext4(16 << 20)
	if why := Skip(fsys); why != "" {
		t.Skip(why)
	}
	if _, err := exec.LookPath("debugfs"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	image, mnt := filepath.Join(dir, "base.img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := fsys.Make(image); err != nil {
		t.Fatal(err)
	}
	m, err := MountFile(fsys, image, mnt)
	if err != nil {
		t.Skipf("cannot loop-mount: %v", err)
	}
	var ids []string
	for i := 0; i < 3; i++ {
		data := fmt.Sprintf("object %d\n", i)
		id, _ := object.SHA1.Sum(object.Blob, []byte(data))
		ids = append(ids, id.String())
		p := filepath.Join(mnt, "repo", "objects", id.String()[:2], id.String()[2:])
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, deflate(fmt.Sprintf("blob %d\x00%s", len(data), data)), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Unmount(); err != nil {
		t.Fatal(err)
	}
	return image, ids
}

// changeTo returns the writes that turn base into the image file name,
// one per differing block.
func changeTo(t *testing.T, base *Disk, name string) Log {
	t.Helper()
	after, err := LoadDisk(name)
	if err != nil {
		t.Fatal(err)
	}
	var l Log
	a, b := make([]byte, BlockSize), make([]byte, BlockSize)
	for off := int64(0); off < base.Size(); off += BlockSize {
		base.ReadAt(a, off)
		after.ReadAt(b, off)
		if string(a) != string(b) {
			l = append(l, Op{Kind: Write, Off: off, Len: BlockSize, Data: append([]byte{}, b...)})
		}
	}
	return l
}

// debugfs runs a debugfs request that writes to image.
func debugfs(t *testing.T, image, request string) {
	t.Helper()
	if out, err := exec.Command("debugfs", "-w", "-R", request, image).CombinedOutput(); err != nil {
		t.Fatalf("debugfs %s: %v\n%s", request, err, out)
	}
}

// TestRescueVerdict replays made-up logs on an image of three objects and
// checks what the verdict tolerates: an image that mounts but is unclean
// for e2fsck -fn, which e2fsck -fy repairs with every object kept, passes
// Recovered; an image that no rescue brings back loses every object of
// the boundary before it, and fails it.
func TestRescueVerdict(t *testing.T) {
	image, ids := objectImage(t)
	base, err := LoadDisk(image)
	if err != nil {
		t.Fatal(err)
	}
	scenario := func(change Log) *Verdict {
		t.Helper()
		log := append(Log{{Kind: Flush}, {Kind: Mark, Name: "done"}}, change...)
		s := &Scenario{FS: Ext4(16 << 20), Base: base, Log: log, ObjectDir: "repo/objects",
			Format: object.SHA1, Want: ids, Done: "done", Points: PointOptions{Seed: 1}}
		v, err := s.Run()
		if err != nil {
			t.Fatal(err)
		}
		t.Log(v)
		return v
	}

	// A wrong link count: the image mounts, every object reads, e2fsck -fn
	// objects and e2fsck -fy repairs it.
	links := filepath.Join(t.TempDir(), "links.img")
	if err := base.WriteFile(links); err != nil {
		t.Fatal(err)
	}
	debugfs(t, links, "sif /repo/objects/"+ids[0][:2]+"/"+ids[0][2:]+" links_count 2")
	v := scenario(changeTo(t, base, links))
	if len(v.Unclean) != 1 || len(v.Rescues) != 1 || !v.Rescues[0].Full() || v.Lost != 0 || !v.Recovered() || v.OK() {
		t.Errorf("an fsck-unclean image that e2fsck -fy repairs: want it unclean, rescued in full and recovered\n%s", v)
	}

	// The whole device zeroed: nothing mounts, e2fsck -fy finds no
	// filesystem, and the three objects the boundary before held are lost.
	v = scenario(Log{{Kind: Write, Off: 0, Len: base.Size()}})
	if len(v.Unclean) != 1 || len(v.Rescues) != 1 || v.Rescues[0].Mounted || v.Lost != len(ids) || v.Recovered() {
		t.Errorf("an image that no rescue brings back: want %d objects lost and not recovered\n%s", len(ids), v)
	}
	if !strings.Contains(v.String(), "all 3 objects that boundary@1 held lost") {
		t.Errorf("the verdict does not say what was lost:\n%s", v)
	}
}
