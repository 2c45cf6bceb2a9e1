package fsck

import (
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// oracleCase is a set of objects to check, git being the judge.
type oracleCase struct {
	name   string
	objs   []obj
	strict string // --strict=<list> for unpack-objects; also fsck -c settings
	// noUnpack skips the unpack-objects comparison (it stops at the first
	// object in error, in an order of its own, or dies on connectivity).
	noUnpack bool
}

// runOracleCases compares Check/Finish with git fsck --strict and git
// unpack-objects --strict for each case.
func runOracleCases(t *testing.T, f object.Format, cases []oracleCase) {
	gittest.Need(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o, err := ParseFor(c.strict, f)
			if err != nil {
				t.Fatal(err)
			}
			var cfg []string
			for _, item := range strings.FieldsFunc(c.strict, func(r rune) bool { return r == ',' }) {
				cfg = append(cfg, "fsck."+item)
			}
			want := newRepo(t, f).fsckOracle(c.objs, cfg...)
			t.Logf("git fsck:\n%s", want)
			diffText(t, "git fsck --strict", renderFsck(checkAll(o, c.objs, f)).String(), want.String())
			if c.noUnpack {
				return
			}
			unpack := newRepo(t, f).unpackOracle(c.objs, c.strict)
			t.Logf("git unpack-objects:\n%s", unpack)
			diffText(t, "git unpack-objects --strict", renderStderr(checkUnpack(c.strict, c.objs, f)), unpack)
		})
	}
}

// checkUnpack does what unpack-objects --strict does: it checks the
// non-blob objects, and runs Finish only if none had an error.
func checkUnpack(list string, objs []obj, f object.Format) []Problem {
	o, _ := ParseFor(list, f)
	byID := map[object.ID]obj{}
	var probs []Problem
	failed := false
	for _, ob := range objs {
		id, _ := f.Sum(ob.t, ob.data)
		byID[id] = ob
		if ob.t == object.Blob {
			continue
		}
		for _, p := range o.Check(id, ob.t, ob.data, f) {
			probs = append(probs, p)
			failed = failed || p.Severity == Error
		}
	}
	if failed {
		return probs
	}
	return append(probs, o.Finish(func(id object.ID) (object.Type, []byte, bool) {
		ob, ok := byID[id]
		return ob.t, ob.data, ok
	})...)
}

func blob(s string) obj    { return obj{object.Blob, []byte(s)} }
func tree(e ...string) obj { return obj{object.Tree, rawTree(e...)} }
func treeRaw(s string) obj { return obj{object.Tree, []byte(s)} }

func TestTreeAgainstGit(t *testing.T) {
	f := object.SHA1
	e := hexID(f, object.Blob, "")
	null := strings.Repeat("0", 40)
	empty := blob("")
	one := func(mode, name string) []obj { return []obj{empty, tree(mode, name, e)} }
	cases := []oracleCase{
		{name: "clean", objs: []obj{empty, tree("100644", "a", e, "100755", "b", e, "120000", "c", e)}},
		{name: "empty tree", objs: []obj{treeRaw("")}},
		{name: "badFilemode 100664", objs: one("100664", "a")},
		{name: "badFilemode 100600", objs: one("100600", "a")},
		{name: "badFilemode 0", objs: one("0", "a")},
		{name: "mode wraps to 100644", objs: one("1100644", "a")},
		{name: "mode wraps past 32 bits", objs: one("77777777777100644", "a")},
		{name: "zeroPaddedFilemode", objs: one("0100644", "a")},
		{name: "zero padded dir", objs: []obj{empty, tree("040000", "d", hexID(f, object.Tree, ""))}, noUnpack: true},
		{name: "nullSha1", objs: []obj{tree("100644", "a", null)}},
		{name: "fullPathname", objs: one("100644", "a/b")},
		{name: "hasDot", objs: one("100644", ".")},
		{name: "hasDotdot", objs: one("100644", "..")},
		{name: "hasDotgit", objs: one("100644", ".git")},
		{name: "hasDotgit upper", objs: one("100644", ".GiT")},
		{name: "hasDotgit hfs zwnj", objs: one("100644", ".g\u200cit")},
		{name: "hasDotgit hfs bom", objs: one("100644", "\ufeff.git")},
		{name: "hasDotgit hfs trailing ignorable", objs: one("100644", ".git\u206f")},
		{name: "hfs bad utf8", objs: one("100644", ".g\xe2\x80it")},
		{name: "hfs overlong", objs: one("100644", ".\xc1\xa7it")},
		{name: "hasDotgit ntfs short", objs: one("100644", "GIT~1")},
		{name: "hasDotgit ntfs dots spaces", objs: one("100644", ".git . .")},
		{name: "hasDotgit ntfs stream", objs: one("100644", ".git::$INDEX_ALLOCATION")},
		{name: "hasDotgit backslash", objs: one("100644", "a\\.git")},
		{name: "hasDotgit backslash short", objs: one("100644", "x\\y\\git~1")},
		{name: "git~2 is fine", objs: one("100644", "git~2")},
		{name: ".gitx is fine", objs: one("100644", ".gitx")},
		{name: "all flags", objs: []obj{empty, tree("0100644", ".", null, "100664", "..", e, "100644", ".git", e, "100644", "a/b", e)}},
		{name: "duplicateEntries", objs: one("100644", "a")[:1:1], noUnpack: false},
		{name: "treeNotSorted", objs: []obj{empty, tree("100644", "b", e, "100644", "a", e)}},
		{name: "dir sorts as slash", objs: []obj{empty, treeRaw(""), tree("100644", "a.c", e, "40000", "a", hexID(f, object.Tree, ""), "100644", "a0", e)}, noUnpack: true},
		{name: "dir before file misordered", objs: []obj{empty, treeRaw(""), tree("40000", "a", hexID(f, object.Tree, ""), "100644", "a.c", e)}, noUnpack: true},
		{name: "file and dir same name", objs: []obj{empty, treeRaw(""), tree("100644", "a", e, "40000", "a", hexID(f, object.Tree, ""))}, noUnpack: true},
		{name: "non-consecutive duplicates", objs: []obj{empty, treeRaw(""), tree("100644", "foo", e, "100644", "foo.bar", e, "100644", "foo.bar.baz", e, "40000", "foo.bar", hexID(f, object.Tree, ""), "40000", "foo", hexID(f, object.Tree, ""))}, noUnpack: true},
		{name: "dups and unsorted", objs: []obj{empty, tree("100644", "b", e, "100644", "b", e, "100644", "a", e)}},
		{name: "badTree too short", objs: []obj{treeRaw("100644 a\x00abc")}},
		{name: "badTree malformed mode", objs: []obj{treeRaw("10064x a\x00" + strings.Repeat("x", 20))}},
		{name: "badTree space mode", objs: []obj{treeRaw(" 100644 a\x00" + strings.Repeat("x", 20))}},
		{name: "badTree empty name", objs: []obj{treeRaw("100644 \x00" + strings.Repeat("x", 20))}},
		{name: "badTree second entry", objs: []obj{empty, {object.Tree, append(rawTree("100644", ".git", e), "100644 \x00xxxxxxxxxxxxxxxxxxxx"...)}}},
		{name: "badTree trailing junk", objs: []obj{empty, {object.Tree, append(rawTree("100644", "a", e), "junk"...)}}},
		{name: "gitmodulesSymlink", objs: one("120000", ".gitmodules")},
		{name: "gitmodulesSymlink ntfs", objs: one("120000", "GITMOD~1")},
		{name: "gitmodulesSymlink backslash", objs: one("120000", "a\\.gitmodules")},
		{name: "gitattributesSymlink", objs: one("120000", ".gitattributes")},
		{name: "gitignoreSymlink", objs: one("120000", ".gitignore ")},
		{name: "mailmapSymlink", objs: one("120000", ".MailMap")},
		{name: "mailmapSymlink short", objs: one("120000", "maba30~3")},
		{name: "symlink demoted", objs: one("120000", ".gitmodules"), strict: "gitmodulesSymlink=warn"},
		{name: "ignored", objs: []obj{empty, tree("100664", "..", e)}, strict: "hasDotdot=ignore,badFilemode=error"},
	}
	// duplicateEntries needs two entries of the same name
	cases[28].objs = []obj{empty, tree("100644", "a", e, "100644", "a", e)}
	runOracleCases(t, f, cases)
}

func TestTreeSHA256AgainstGit(t *testing.T) {
	f := object.SHA256
	e := hexID(f, object.Blob, "")
	runOracleCases(t, f, []oracleCase{
		{name: "clean", objs: []obj{blob(""), tree("100644", "a", e)}},
		{name: "flags", objs: []obj{blob(""), tree("0100644", ".git", e, "100644", "a", strings.Repeat("0", 64))}},
		{name: "unsorted", objs: []obj{blob(""), tree("100644", "b", e, "100644", "a", e)}},
		{name: "sha1-sized entry", objs: []obj{treeRaw("100644 a\x00" + strings.Repeat("x", 20))}},
	})
}
