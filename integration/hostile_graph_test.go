package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/packtest"
	"github.com/git-durable/git-durable/object"
)

// graphLie is a pack whose objects are all there but link to one another
// with the wrong types, and the refs an advertisement names in it.
type graphLie struct {
	name string
	// build adds the objects to b and returns the refs (name → id) and
	// the object a link names with the wrong type.
	build func(b *graphBuilder) (refs map[string]string, bad string)
}

// graphBuilder writes objects into a pack and names them.
type graphBuilder struct {
	t *testing.T
	b packtest.Builder
}

// add appends an object and returns its id in hex.
func (g *graphBuilder) add(typ object.Type, data string) string {
	id, err := object.SHA1.Sum(typ, []byte(data))
	if err != nil {
		g.t.Fatal(err)
	}
	g.b.Object(typ, []byte(data))
	return id.String()
}

func commitText(tree string, parents ...string) string {
	s := "tree " + tree + "\n"
	for _, p := range parents {
		s += "parent " + p + "\n"
	}
	return s + "author A U Thor <author@example.com> 1700000000 +0000\ncommitter C O Mitter <committer@example.com> 1700000000 +0000\n\nlie\n"
}

var graphLies = []graphLie{
	{"commit tree is a blob", func(g *graphBuilder) (map[string]string, string) {
		blob := g.add(object.Blob, "lie\n")
		return map[string]string{"refs/heads/main": g.add(object.Commit, commitText(blob))}, blob
	}},
	{"parent is a tree", func(g *graphBuilder) (map[string]string, string) {
		tree := g.add(object.Tree, treeEntry("100644", "f", g.add(object.Blob, "lie\n")))
		return map[string]string{"refs/heads/main": g.add(object.Commit, commitText(tree, tree))}, tree
	}},
	{"tree names a blob as a directory", func(g *graphBuilder) (map[string]string, string) {
		blob := g.add(object.Blob, "lie\n")
		tree := g.add(object.Tree, treeEntry("40000", "d", blob))
		return map[string]string{"refs/heads/main": g.add(object.Commit, commitText(tree))}, blob
	}},
	{"tag type lies", func(g *graphBuilder) (map[string]string, string) {
		blob := g.add(object.Blob, "lie\n")
		tree := g.add(object.Tree, treeEntry("100644", "f", blob))
		tag := g.add(object.Tag, "object "+blob+"\ntype commit\ntag t\ntagger C O Mitter <committer@example.com> 1700000000 +0000\n\nlie\n")
		return map[string]string{"refs/heads/main": g.add(object.Commit, commitText(tree)), "refs/tags/t": tag}, blob
	}},
}

// liePack builds the lie's pack, with pad more blobs, the advertisement of
// its refs (with upload-pack's capabilities), and the object lied about.
func liePack(t *testing.T, l graphLie, pad int) ([]byte, func([]string) []string, string) {
	g := &graphBuilder{t: t}
	refs, bad := l.build(g)
	for i := 0; i < pad; i++ {
		g.add(object.Blob, fmt.Sprintf("padding %d\n", i))
	}
	adv := func(pkts []string) []string {
		_, rest, _ := strings.Cut(pkts[0], "\x00")
		out := []string{refs["refs/heads/main"] + " HEAD\x00" + rest}
		for _, name := range []string{"refs/heads/main", "refs/tags/t"} {
			if id, ok := refs[name]; ok {
				out = append(out, id+" "+name+"\n")
			}
		}
		return out
	}
	return g.b.Pack(), adv, bad
}

// TestHostileGraphLies: an upstream sends every object its refs need, but
// links of the wrong type — a commit whose tree is a blob, a parent that is
// a tree, a tree naming a blob as a directory, a tag whose type lies. Plain
// git's clone refuses each (its index-pack runs --strict for a clone). So
// must a clone through the helper, kept (10,000 more blobs: at the unpack
// limit) or exploded, with transfer.fsckObjects or without: exit 128 with a
// fatal line naming the object lied about, no repository left. A fetch
// into a mirror (where git checks the graph itself) fails as plain git's
// does, its refs as they were. The same server with an honest pack is
// cloned by both.
func TestHostileGraphLies(t *testing.T) {
	env := env(t)
	base := t.TempDir()
	up := newUpstream(t, env, base, "up.git")
	mirror := filepath.Join(base, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", up, mirror)
	honest := graphLie{"honest", func(g *graphBuilder) (map[string]string, string) {
		tree := g.add(object.Tree, treeEntry("100644", "f", g.add(object.Blob, "true\n")))
		return map[string]string{"refs/heads/main": g.add(object.Commit, commitText(tree))}, ""
	}}
	pack, adv, _ := liePack(t, honest, 10000)
	d := startHostile(t, env, up, lie{adv: adv, pack: pack})
	for _, side := range hostileSides {
		dst := filepath.Join(t.TempDir(), "m.git")
		mustRun(t, gittest.Exec(t, env, base, nil, "git", "clone", "--mirror", side.prefix+d.url, dst), side.name+" clone of the honest pack")
		gittest.Fsck(t, env, dst)
	}
	for _, l := range graphLies {
		for _, pad := range []int{0, 10000} {
			pack, adv, bad := liePack(t, l, pad)
			d := startHostile(t, env, up, lie{adv: adv, pack: pack})
			for _, fsck := range []string{"false", "true"} {
				t.Run(fmt.Sprintf("%s/pad %d/fsckObjects %s", l.name, pad, fsck), func(t *testing.T) {
					for _, side := range hostileSides {
						dst := filepath.Join(t.TempDir(), "m.git")
						c := gittest.Exec(t, env, base, nil, "git", "-c", "transfer.fsckObjects="+fsck, "clone", "--mirror", side.prefix+d.url, dst)
						if c.Code != 128 || !refusal(c, bad) {
							t.Errorf("%s clone: exit %d, want 128 with a fatal line naming %s:\n%s", side.name, c.Code, bad, c.Stderr)
						}
						if _, err := os.Stat(dst); !os.IsNotExist(err) {
							t.Errorf("%s: the clone left %s (%v)", side.name, dst, err)
						}
					}
					if pad > 0 {
						fetchLie(t, env, mirror, d.url, fsck, bad)
					}
				})
			}
		}
	}
}

// fetchLie fetches url into two copies of the mirror, with git and through
// the helper: the same exit code, not 0, the object named, no ref changed.
func fetchLie(t *testing.T, env []string, mirror, url, fsck, bad string) {
	t.Helper()
	var codes [2]int
	for i, side := range hostileSides {
		dst := filepath.Join(t.TempDir(), "m.git")
		gittest.Git(t, env, "", "clone", "-q", "--mirror", mirror, dst)
		before := refs(t, env, dst)
		c := gittest.Exec(t, env, dst, nil, "git", "-c", "transfer.fsckObjects="+fsck, "fetch", side.prefix+url, "+refs/*:refs/*")
		if codes[i] = c.Code; c.Code == 0 || !refusal(c, bad) {
			t.Errorf("%s fetch: exit %d, want a failure naming %s:\n%s", side.name, c.Code, bad, c.Stderr)
		}
		if after := refs(t, env, dst); after != before {
			t.Errorf("%s fetch changed the refs:\n%s\nnow:\n%s", side.name, before, after)
		}
	}
	if codes[0] != codes[1] {
		t.Errorf("fetch: git exit %d, ours %d", codes[0], codes[1])
	}
}

// refusal reports whether c's stderr ends with a fatal line (or fetch's
// "did not send all necessary objects") and names bad; git unpack-objects
// --strict's "object type mismatch" names nothing.
func refusal(c *gittest.Cmd, bad string) bool {
	last := result{Cmd: c}.lastLine()
	if last == "fatal: object type mismatch" {
		return true
	}
	ends := strings.HasPrefix(last, "fatal: ") || strings.HasPrefix(last, "error: ") && strings.HasSuffix(last, " did not send all necessary objects")
	return ends && strings.Contains(string(c.Stderr), bad)
}
