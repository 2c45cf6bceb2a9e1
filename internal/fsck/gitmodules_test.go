package fsck

import (
	"strings"
	"testing"

	"github.com/git-durable/git-durable/object"
)

// modules returns a blob with the given .gitmodules text and a tree naming
// it name.
func modules(f object.Format, name, text string) []obj {
	return []obj{blob(text), tree("100644", name, hexID(f, object.Blob, text))}
}

func TestGitmodulesAgainstGit(t *testing.T) {
	f := object.SHA1
	gm := func(text string) []obj { return modules(f, ".gitmodules", text) }
	sub := func(kv string) []obj { return gm("[submodule \"s\"]\n\t" + kv + "\n") }
	cases := []oracleCase{
		{name: "clean", objs: gm("[submodule \"lib/x\"]\n\tpath = lib/x\n\turl = https://example.com/x.git\n\tbranch = main\n\tupdate = rebase\n")},
		{name: "empty", objs: gm("")},
		{name: "name dotdot per key", objs: gm("[submodule \"../a\"]\n\tpath = x\n\turl = y\n\tfoo\n")},
		{name: "name inner dotdot", objs: gm("[submodule \"a/../b\"]\n\tpath = x\n")},
		{name: "name backslash dotdot", objs: gm("[submodule \"a\\\\..\"]\n\tpath = x\n")},
		{name: "name dotdot prefix ok", objs: gm("[submodule \"..a\"]\n\tpath = x\n")},
		{name: "name empty", objs: gm("[submodule \"\"]\n\tpath = x\n")},
		{name: "name old style", objs: gm("[submodule.Foo]\n\tpath = -x\n")},
		{name: "section case", objs: gm("[SubModule \"A\"]\n\tPATH = -x\n")},
		{name: "no subsection", objs: gm("[submodule]\n\tpath = -x\n")},
		{name: "other section", objs: gm("[core]\n\tpath = -x\n")},
		{name: "url option", objs: sub("url = -x")},
		{name: "url dot slash newline", objs: sub("url = ./%0a")},
		{name: "url dot backslash newline", objs: sub("url = .\\\\%0a")},
		{name: "url dotdot colon", objs: sub("url = ../:x")},
		{name: "url dotdot slash", objs: sub("url = ./../..//x")},
		{name: "url dotdot ok", objs: sub("url = ../../x")},
		{name: "url git newline", objs: sub("url = git://a%0Ab")},
		{name: "url git ok", objs: sub("url = git://a/b")},
		{name: "url escaped newline", objs: sub("url = ./a\\nb")},
		{name: "url https no host", objs: sub("url = https:///x")},
		{name: "url https user newline", objs: sub("url = https://a%0a@b/x")},
		{name: "url https password newline", objs: sub("url = https://u:p%0a@h/x")},
		{name: "url https path newline", objs: sub("url = https://h/p%0ax")},
		{name: "url https path colon hides newline", objs: sub("url = https://h/%0a:x")},
		{name: "url https host port", objs: sub("url = https://h%0a:80/x")},
		{name: "url ftp host colon newline", objs: sub("url = ftp://h:%0a/x")},
		{name: "url curl prefix", objs: sub("url = http::https://a%0a@b/x")},
		{name: "url curl no scheme", objs: sub("url = http::x")},
		{name: "url other", objs: sub("url = ssh://a%0ab/x")},
		{name: "path option", objs: sub("path = -p")},
		{name: "path quoted option", objs: sub("path = \"-p\"")},
		{name: "path nul", objs: sub("path = \"-\\b\"")},
		{name: "update command", objs: sub("update = !rm -rf /")},
		{name: "update none", objs: sub("update = none")},
		{name: "update no value", objs: sub("update")},
		{name: "checks then parse error", objs: gm("[submodule \"a\"]\n\tupdate = !rm\n\tpath=-p\n[bad\n")},
		{name: "parse bom", objs: gm("\xef\xbb\xbf[submodule \"a\"]\n\tpath = -x\n")},
		{name: "parse open quote", objs: sub("path = \"-z")},
		{name: "parse bad escape", objs: sub("path = a\\qb")},
		{name: "parse key digit", objs: gm("[s]\n1x = y\n")},
		{name: "parse key junk", objs: gm("[s]\nx! = y\n")},
		{name: "parse empty section", objs: gm("[]\n")},
		{name: "parse subsection newline", objs: gm("[submodule \"a\n\"]\n")},
		{name: "parse no quote", objs: gm("[submodule a]\n")},
		{name: "parse after subsection", objs: gm("[submodule \"a\"x]\n")},
		{name: "ff ends parse", objs: gm("[submodule \"a\"]\n\tpath = ok\xff\n\tpath = -z\n")},
		{name: "ff then section", objs: gm("[submodule \"a\"]\n\tpath = ok\xff[x]\n")},
		{name: "ff in key", objs: gm("[submodule \"a\"]\n\tpa\xffth = -z\n\tpath = -y\n")},
		{name: "cr ff", objs: gm("[submodule \"a\"]\n\tpath = -ok\r\xff\n\tpath = -z\n")},
		{name: "crlf", objs: gm("[submodule \"a\"]\r\n\tpath = -x\r\n\turl = -y\r\n")},
		{name: "lone cr", objs: gm("[submodule \"a\"]\r\tpath = -x\r")},
		{name: "comments and continuation", objs: gm("# c\n; d\n[submodule \"a\"] # x\n\tpath = a\\\nb ; c\n\turl = \"-u\" # q\n")},
		{name: "nul in subsection", objs: gm("[submodule \"a\x00b\"]\n\tpath = -z\n")},
		{name: "nul in value", objs: gm("[submodule \"a\"]\n\tpath = -\x00x\n")},
		{name: "escaped quote in name", objs: gm("[submodule \"..\\\"\"]\n\tpath = x\n[submodule \"\\..\"]\n\tpath = x\n")},
		{name: "spaces in value", objs: sub("url =   -a  b  ")},
		{name: "key without section", objs: gm("path = -x\n")},
		{name: "upper spelling", objs: modules(f, ".GITMODULES", "[submodule \"..\"]\npath=x\n")},
		{name: "ntfs spelling", objs: modules(f, "GITMOD~1", "[submodule \"..\"]\npath=x\n")},
		{name: "ntfs fallback spelling", objs: modules(f, "gi7eba~9", "[submodule \"..\"]\npath=x\n")},
		{name: "trailing dots spelling", objs: modules(f, ".gitmodules. .", "[submodule \"..\"]\npath=x\n")},
		{name: "hfs spelling", objs: modules(f, ".git\u200cmodules", "[submodule \"..\"]\npath=x\n")},
		{name: "backslash spelling", objs: modules(f, "d\\.gitmodules", "[submodule \"..\"]\npath=x\n")},
		{name: "not gitmodules", objs: modules(f, ".gitmodulesx", "[submodule \"..\"]\npath=x\n")},
		{name: "demoted", objs: sub("url = -x"), strict: "gitmodulesUrl=warn,gitmodulesParse=error"},
		{name: "long message cut", objs: sub("url = -" + strings.Repeat("x", 5000))},
	}
	runOracleCases(t, f, cases)
}

func TestGitattributesAgainstGit(t *testing.T) {
	f := object.SHA1
	ga := func(text string) []obj { return modules(f, ".gitattributes", text) }
	long := strings.Repeat("x", attrMaxLineLength)
	runOracleCases(t, f, []oracleCase{
		{name: "clean", objs: ga("*.c text\n*.png binary\n")},
		{name: "line just short enough", objs: ga("a\n" + long[1:] + "\nb")},
		{name: "line too long", objs: ga("a\n" + long + "\n")},
		{name: "last line too long", objs: ga("a\n" + long)},
		{name: "long line after nul", objs: ga("a\x00\n" + long + "\n")},
		{name: "ntfs spelling", objs: modules(f, "GI7D29~1", long)},
		{name: "demoted", objs: ga(long), strict: "gitattributesLineLength=warn"},
		{name: "both names", objs: []obj{blob(long), tree("100644", ".gitattributes", hexID(f, object.Blob, long), "100644", ".gitmodules", hexID(f, object.Blob, long))}},
	})
}

func TestFinishMissingAndNonBlobAgainstGit(t *testing.T) {
	f := object.SHA1
	e := hexID(f, object.Blob, "")
	sub := tree("100644", "x", e)
	subID := hexID(f, object.Tree, string(sub.data))
	runOracleCases(t, f, []oracleCase{
		{name: "gitmodulesMissing", objs: []obj{tree("100644", ".gitmodules", hexID(f, object.Blob, "nope"))}, noUnpack: true},
		{name: "gitattributesMissing", objs: []obj{tree("100644", ".gitattributes", hexID(f, object.Blob, "nope"))}, noUnpack: true},
		{name: "gitmodulesBlob", objs: []obj{blob(""), sub, tree("100644", ".gitmodules", subID)}, noUnpack: true},
		{name: "gitattributesBlob", objs: []obj{blob(""), sub, tree("100644", ".gitattributes", subID)}, noUnpack: true},
	})
}

// TestBlobCheckedWhenSeen checks the two ways a .gitmodules blob gets
// checked: by Check when its tree came first, else by Finish; and
// TooLarge for blobs the caller cannot load.
func TestBlobCheckedWhenSeen(t *testing.T) {
	f := object.SHA1
	objs := modules(f, ".gitmodules", "[submodule \"..\"]\n\tpath = x\n")
	bid, _ := f.Sum(object.Blob, objs[0].data)
	tid, _ := f.Sum(object.Tree, objs[1].data)
	none := func(object.ID) (object.Type, []byte, bool) { return 0, nil, false }

	o := Strict()
	if p := o.Check(bid, object.Blob, objs[0].data, f); len(p) != 0 {
		t.Errorf("blob before its tree: %v", p)
	}
	o.Check(tid, object.Tree, objs[1].data, f)
	if p := o.Check(bid, object.Blob, objs[0].data, f); len(p) != 1 || p[0].MsgID != "gitmodulesName" || p[0].ID != bid {
		t.Errorf("blob after its tree: %v", p)
	}
	if p := o.Finish(none); len(p) != 0 {
		t.Errorf("Finish after the blob was checked: %v", p)
	}

	o = Strict()
	o.Check(tid, object.Tree, objs[1].data, f)
	p := o.Finish(none)
	if len(p) != 1 || p[0].String() != "object "+bid.String()+": gitmodulesMissing: unable to read .gitmodules blob" {
		t.Errorf("Finish without the blob: %v", p)
	}

	o = Strict()
	o.Check(tid, object.Tree, objs[1].data, f)
	if p := o.TooLarge(bid); len(p) != 1 || p[0].Text != ".gitmodules too large to parse" || p[0].MsgID != "gitmodulesLarge" {
		t.Errorf("TooLarge: %v", p)
	}
	if p := o.Finish(none); len(p) != 0 {
		t.Errorf("Finish after TooLarge: %v", p)
	}

	big := make([]byte, attrMaxFileSize+1)
	bigID, _ := f.Sum(object.Blob, big)
	o = Strict()
	o.Check(tid, object.Tree, rawTree("100644", ".gitattributes", bigID.String()), f)
	if p := o.Check(bigID, object.Blob, big, f); len(p) != 1 || p[0].MsgID != "gitattributesLarge" {
		t.Errorf("huge .gitattributes: %v", p)
	}
}
