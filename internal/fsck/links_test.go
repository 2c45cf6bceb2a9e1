package fsck

import (
	"errors"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/object"
)

func TestLinksTree(t *testing.T) {
	f := object.SHA1
	e := hexID(f, object.Blob, "")
	tr := hexID(f, object.Tree, "")
	data := rawTree("100644", "a", e, "100755", "b", e, "120000", "c", e, "40000", "d", tr,
		"160000", "e", e, "170000", "f", e, "0", "g", e, "100664", "h", e, "1100644", "i", e)
	links, err := Links(object.Tree, data, f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range links {
		got = append(got, l.Type.String())
	}
	// gitlinks and modes git's walk cannot place (canonicalized to gitlinks)
	// are not links; 100664 is a file; 1100644 wraps to a file.
	if want := "blob blob blob tree blob blob"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
	for _, bad := range []string{"100644 a\x00abc", "x 100644", "100644 \x00" + strings.Repeat("x", 20)} {
		if _, err := Links(object.Tree, []byte(bad), f); !errors.Is(err, ErrMalformed) {
			t.Errorf("Links(%q) = %v, want ErrMalformed", bad, err)
		}
	}
	if l, err := Links(object.Blob, []byte("tree x\n"), f); l != nil || err != nil {
		t.Errorf("blob links: %v %v", l, err)
	}
	if _, err := Links(object.Type(9), nil, f); err == nil {
		t.Errorf("no error for a bad type")
	}
}

// TestAppendLinks checks that AppendLinks keeps what dst holds and adds
// what Links returns, also for a commit it refuses.
func TestAppendLinks(t *testing.T) {
	f := object.SHA1
	e := hexID(f, object.Blob, "")
	keep := []Link{{Type: object.Tag}}
	tree := rawTree("100644", "a", e, "40000", "d", hexID(f, object.Tree, ""))
	commit := []byte("tree " + hexID(f, object.Tree, "") + "\nparent " + hexID(f, object.Commit, "") + "\n\nm\n")
	for _, c := range []struct {
		t    object.Type
		data []byte
		want int
	}{{object.Tree, tree, 2}, {object.Commit, commit, 2}, {object.Commit, []byte("junk"), 0}, {object.Blob, tree, 0}} {
		got, err := AppendLinks(append([]Link(nil), keep...), c.t, c.data, f)
		want, werr := Links(c.t, c.data, f)
		if len(got) != 1+c.want || got[0] != keep[0] || len(want) != c.want || (err == nil) != (werr == nil) {
			t.Errorf("%s: AppendLinks = %v, %v; Links = %v, %v", c.t, got, err, want, werr)
			continue
		}
		for i := range want {
			if got[1+i] != want[i] {
				t.Errorf("%s: link %d: %v, want %v", c.t, i, got[1+i], want[i])
			}
		}
	}
}

// TestLinksAgainstGitParser checks that Links refuses exactly the commits
// and tags git's parser refuses (git fsck says "could not be parsed").
func TestLinksAgainstGitParser(t *testing.T) {
	f := object.SHA1
	T := "tree " + hexID(f, object.Tree, "") + "\n"
	P := "parent " + hexID(f, object.Commit, "x") + "\n"
	// one id per type: git's parser refuses an id seen as two types
	O := "object " + hexID(f, object.Blob, "") + "\n"
	rest := "author A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nm\n"
	objs := []obj{
		commit(T + rest), commit(T + P + P + rest), commit(rest), commit(T), commit(T + "x"),
		commit(strings.TrimSuffix(T, "\n") + " \n" + rest), commit("tree " + strings.Repeat("g", 40) + "\n" + rest),
		commit(T + "parent 12\n" + rest), commit(T + "parent 12\n"), commit(T + P[:len(P)-2] + "\n" + rest),
		commit(T + strings.ToUpper(P)), commit(T[:5] + strings.ToUpper(T[5:]) + "\n"),
		tagObj(O + "type blob\ntag v1\n\n"), tagObj(O + "type blob\ntag v1\n"), tagObj(O + "type blob\ntag v1"),
		tagObj(O + "type blob\ntag \n"), tagObj(O + "type blob\ntagx v1\n\n"), tagObj(O + "type blobs\ntag v1\n\n"),
		tagObj("object " + hexID(f, object.Tree, "") + "\ntype tree\ntag v1\ntagger x\n"), tagObj(O + "type commit\n\ntag v1\n"),
		tagObj(O + "type " + strings.Repeat("b", 25) + "\ntag v1\n"), tagObj("object 12\ntype blob\ntag v1\n\n"),
		tagObj(O + "type blob\x00x\ntag v1\n\n"), tagObj(O[:len(O)-1] + " \ntype blob\ntag v1\n\n"),
	}
	repo := newRepo(t, f)
	for _, o := range objs {
		repo.write(o)
	}
	_, errOut, _ := repo.run(nil, "fsck", "--strict", "--no-dangling")
	if n := strings.Count(errOut, "object could not be parsed"); n < 8 {
		t.Fatalf("git refused only %d objects: is the oracle working?\n%s", n, errOut)
	}
	for _, o := range objs {
		id, _ := f.Sum(o.t, o.data)
		gitRefuses := strings.Contains(errOut, id.String()+": object could not be parsed")
		_, err := Links(o.t, o.data, f)
		if (err != nil) != gitRefuses {
			t.Errorf("%s %q: Links error %v, git refuses: %v", o.t, o.data, err, gitRefuses)
		}
		if err == nil {
			continue
		}
		// what unpack-objects --strict prints when it parses the object
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, ErrMalformed) {
			t.Fatalf("Links error %T %v", err, err)
		}
		want := "fatal: invalid " + o.t.String() + "\n"
		if m := pe.GitMessage(id); m != "" {
			want = "error: " + m + "\n" + want
		}
		single := newRepo(t, f)
		pack := single.git([]byte(single.write(o).String()+"\n"), "pack-objects", "--stdout", "-q")
		dst := newRepo(t, f)
		if _, got, _ := dst.run([]byte(pack), "unpack-objects", "-q", "--strict"); got != want {
			t.Errorf("%s %q: git unpack-objects says\n%s\nwe would say\n%s", o.t, o.data, got, want)
		}
	}
}

// TestLinksTreeAgainstGitWalk checks what git's walk of a malformed tree
// prints when badTree is not an error: the parser's reason, and a failure
// only when the first entry is bad.
func TestLinksTreeAgainstGitWalk(t *testing.T) {
	f := object.SHA1
	e := hexID(f, object.Blob, "")
	for _, data := range []string{
		"100644 a\x00abc",
		string(rawTree("100644", "a", e)) + "100644 \x00" + strings.Repeat("x", 20),
		string(rawTree("100644", "a", e)) + "junk",
	} {
		objs := []obj{blob(""), treeRaw(data)}
		got := newRepo(t, f).unpackOracle(objs, "badTree=ignore")
		links, err := Links(object.Tree, []byte(data), f)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("Links(%q): %v", data, err)
		}
		want := "error: " + pe.GitMessage(object.ID{}) + "\n" // fsck_tree's parse
		want += want                                          // the walk's parse
		if pe.Partial != (len(links) > 0) || (pe.Partial && len(links) != 1) {
			t.Errorf("Links(%q) = %v, partial %v", data, links, pe.Partial)
		}
		if got != want {
			t.Errorf("tree %q: git says\n%s\nwe would say\n%s", data, got, want)
		}
	}
}
