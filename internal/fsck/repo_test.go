package fsck

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/object"
)

// buildRealisticRepo makes a repository with git commands: nested trees,
// an executable, a symlink, .gitattributes, .gitmodules with a submodule
// gitlink, a merge, and annotated tags.
func buildRealisticRepo(t *testing.T, f object.Format) *gitRepo {
	r := newRepo(t, f)
	write := func(name, text string, mode os.FileMode) {
		p := filepath.Join(r.dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("README", "hello\n", 0o644)
	write("src/main.c", "int main(void) { return 0; }\n", 0o644)
	write("src/lib/util.c", "/* util */\n", 0o644)
	write("src/lib.h", "/* lib.h sorts before the lib directory */\n", 0o644)
	write("run.sh", "#!/bin/sh\necho hi\n", 0o755)
	write(".gitattributes", "*.c text\n*.png binary\n", 0o644)
	if err := os.Symlink("README", filepath.Join(r.dir, "link")); err != nil {
		t.Fatal(err)
	}
	r.git(nil, "add", "-A")
	r.git(nil, "commit", "-q", "-m", "first")
	first := strings.TrimSpace(r.git(nil, "rev-parse", "HEAD"))
	write(".gitmodules", "[submodule \"sub\"]\n\tpath = sub\n\turl = https://example.com/sub.git\n\tbranch = main\n", 0o644)
	r.git(nil, "add", ".gitmodules")
	r.git(nil, "update-index", "--add", "--cacheinfo", "160000,"+first+",sub")
	r.git(nil, "commit", "-q", "-m", "add submodule\n\nwith a body")
	r.git(nil, "checkout", "-q", "-b", "side", first)
	write("side.txt", "side\n", 0o644)
	r.git(nil, "add", "side.txt")
	r.git(nil, "commit", "-q", "-m", "side")
	r.git(nil, "checkout", "-q", "-")
	r.git(nil, "merge", "-q", "--no-edit", "side")
	r.git(nil, "tag", "-a", "v1.0", "-m", "release 1.0")
	r.git(nil, "tag", "-a", "v1.0-tree", "-m", "a tree", "HEAD^{tree}")
	r.git(nil, "tag", "-a", "outer", "-m", "tag of a tag", "v1.0")
	return r
}

// allObjects reads every object of the repository with git cat-file.
func (r *gitRepo) allObjects() map[object.ID]obj {
	out := r.git(nil, "cat-file", "--batch-all-objects", "--batch")
	rd := bufio.NewReader(strings.NewReader(out))
	objs := map[object.ID]obj{}
	for {
		hdr, err := rd.ReadString('\n')
		if err != nil {
			break
		}
		var hexid, typ string
		var size int
		if _, err := fmt.Sscanf(hdr, "%s %s %d", &hexid, &typ, &size); err != nil {
			r.t.Fatalf("cat-file header %q: %v", hdr, err)
		}
		data := make([]byte, size+1)
		if _, err := io.ReadFull(rd, data); err != nil {
			r.t.Fatal(err)
		}
		id, _ := object.ParseID(hexid)
		tt, _ := object.ParseType([]byte(typ))
		objs[id] = obj{tt, data[:size]}
	}
	return objs
}

// gitLinks asks git what object id refers to.
func (r *gitRepo) gitLinks(id object.ID, t object.Type) []string {
	var out []string
	switch t {
	case object.Commit:
		f := strings.Fields(r.git(nil, "log", "-1", "--format=%T %P", id.String()))
		out = append(out, "tree "+f[0])
		for _, p := range f[1:] {
			out = append(out, "commit "+p)
		}
	case object.Tree:
		for _, l := range strings.Split(strings.TrimSpace(r.git(nil, "ls-tree", id.String())), "\n") {
			if f := strings.Fields(l); len(f) >= 3 && f[1] != "commit" {
				out = append(out, f[1]+" "+f[2])
			}
		}
	case object.Tag:
		lines := strings.SplitN(r.git(nil, "cat-file", "-p", id.String()), "\n", 3)
		out = append(out, strings.TrimPrefix(lines[1], "type ")+" "+strings.TrimPrefix(lines[0], "object "))
	}
	return out
}

func TestRealisticRepository(t *testing.T) {
	for _, f := range []object.Format{object.SHA1, object.SHA256} {
		t.Run(f.String(), func(t *testing.T) {
			r := buildRealisticRepo(t, f)
			objs := r.allObjects()
			if len(objs) < 20 {
				t.Fatalf("only %d objects", len(objs))
			}
			if _, errOut, err := r.run(nil, "fsck", "--strict", "--no-dangling"); err != nil {
				t.Fatalf("git fsck --strict fails on the test repository: %v\n%s", err, errOut)
			}
			var ids []object.ID
			for id := range objs {
				ids = append(ids, id)
			}
			sort.Slice(ids, func(i, j int) bool { return ids[i].Compare(ids[j]) < 0 })
			o := Strict()
			counts := map[object.Type]int{}
			for _, id := range ids {
				ob := objs[id]
				counts[ob.t]++
				if p := o.Check(id, ob.t, ob.data, f); len(p) != 0 {
					t.Errorf("%s %s: %v", ob.t, id, p)
				}
				links, err := Links(ob.t, ob.data, f)
				if err != nil {
					t.Errorf("Links(%s %s): %v", ob.t, id, err)
				}
				var got []string
				for _, l := range links {
					got = append(got, l.Type.String()+" "+l.ID.String())
				}
				if want := r.gitLinks(id, ob.t); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("Links(%s %s):\n got %q\nwant %q", ob.t, id, got, want)
				}
			}
			if len(o.modulesFound) == 0 || len(o.attrsFound) == 0 {
				t.Errorf("Check did not record .gitmodules / .gitattributes blobs")
			}
			p := o.Finish(func(id object.ID) (object.Type, []byte, bool) {
				ob, ok := objs[id]
				return ob.t, ob.data, ok
			})
			if len(p) != 0 {
				t.Errorf("Finish: %v", p)
			}
			if counts[object.Tag] != 3 || counts[object.Commit] != 4 {
				t.Errorf("object counts %v", counts)
			}
			t.Logf("%d objects checked: %s", len(objs), strconv.Quote(fmt.Sprint(counts)))
		})
	}
}
