package loose_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/quarantine"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// TestPackCutShortIsAbsent: a pack cut short is refused whole, as git
// refuses it — none of its objects is present, read or needed as there —
// and publishing the same pack again replaces its file, the cut one kept
// in the quarantine; the index, the same byte for byte, stays as it is.
// Without a quarantine the publication fails as git's check does.
func TestPackCutShortIsAbsent(t *testing.T) {
	gittest.Need(t)
	env := gittest.Env(t)
	repo := gittest.Init(t, env, true, "")
	var ids []string
	for i := range 20 {
		gittest.WriteFile(t, repo, "x", strings.Repeat("line "+string(rune('a'+i))+"\n", 50))
		ids = append(ids, strings.TrimSpace(gittest.Git(t, env, repo, "hash-object", "-w", "x")))
	}
	out := gittest.GitIn(t, env, repo, []byte(strings.Join(ids, "\n")+"\n"), "pack-objects", "-q", filepath.Join(repo, "objects/pack/pack"))
	base := filepath.Join(repo, "objects/pack/pack-"+strings.TrimSpace(string(out)))
	good, err := os.ReadFile(base + ".pack")
	if err != nil {
		t.Fatal(err)
	}
	for _, hex := range ids {
		os.RemoveAll(filepath.Join(repo, "objects", hex[:2]))
	}
	os.Chmod(base+".pack", 0o644)
	if err := os.WriteFile(base+".pack", good[:len(good)*6/10], 0o444); err != nil {
		t.Fatal(err)
	}
	objs := filepath.Join(repo, "objects")
	first, _ := object.ParseID(ids[0])
	s := loose.Open(batch.OS, objs, loose.Options{})
	if ok, err := s.Present(first); ok || err != nil {
		t.Errorf("present in a pack cut short: %v %v", ok, err)
	}
	if need, err := s.Need(first); !need || err != nil {
		t.Errorf("need %v %v, want true", need, err)
	}
	publish := func(q *quarantine.Dir) error {
		s := loose.Open(batch.OS, objs, loose.Options{Quarantine: q})
		defer s.Close()
		p := batch.New(batch.OS, objs, batch.Options{Method: batch.Batch, Force: true})
		tx := p.Begin()
		var files []loose.PackFile
		for _, ext := range []string{"pack", "idx"} {
			f, err := s.CreatePackTemp(tx, ext)
			if err != nil {
				t.Fatal(err)
			}
			src, _ := os.Open(base + "." + ext)
			if ext == "pack" {
				f.Write(good)
			} else {
				io.Copy(f, src)
			}
			src.Close()
			files = append(files, loose.PackFile{Ext: ext, File: f})
		}
		sum := good[len(good)-20:]
		if _, err := s.PublishPack(tx, sum, files); err != nil {
			tx.End()
			return err
		}
		return tx.End()
	}
	if err := publish(nil); err == nil || !strings.Contains(err.Error(), "differ in contents") {
		t.Errorf("without a quarantine: %v", err)
	}
	q := quarantine.New(batch.OS, repo, time.Now())
	if err := publish(q); err != nil {
		t.Fatal(err)
	}
	gittest.Fsck(t, env, repo)
	if got := q.Retired(); len(got) != 1 || got[0] != "objects/pack/"+filepath.Base(base)+".pack" {
		t.Errorf("kept aside %v, want the pack alone", got)
	}
	kept, err := os.ReadFile(filepath.Join(q.Path(), "objects/pack", filepath.Base(base)+".pack"))
	if err != nil || len(kept) != len(good)*6/10 {
		t.Errorf("the cut pack kept aside: %d bytes, %v", len(kept), err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(objs, "pack/tmp_*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}
