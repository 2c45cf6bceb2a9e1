package fsck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// TestParseAgainstGit feeds --strict lists to git unpack-objects (with an
// empty pack on stdin) and compares its fatal error with Parse's.
func TestParseAgainstGit(t *testing.T) {
	gittest.Need(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte("# skip these\n\n  0123456789012345678901234567890123456789 # one\n\tABCDEF0123456789012345678901234567890123\r\n"), 0o644)
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("0123456789012345678901234567890123456789\nzz # x\n"), 0o644)
	long := filepath.Join(dir, "long")
	os.WriteFile(long, []byte("0123456789012345678901234567890123456789x\n"), 0o644)
	sha256 := filepath.Join(dir, "sha256")
	os.WriteFile(sha256, []byte(strings.Repeat("ab", 32)+"\n"), 0o644)
	lists := []string{
		"", ",, ||", "badName=warn", "BADNAME=warn", "badName:ignore,missingEmail=error|zeroPaddedDate=warn",
		"foo", "FOO", "foo=bar", "foo=warn", "bad_name=warn", "badName=Warn", "badName=info",
		"badName=", "=warn", "badName=warn=x", "badName==warn", "a=b c",
		"nulInHeader=warn", "unterminatedHeader:ignore", "nulInHeader=error",
		"skiplist", "SkipList", "skiplist=" + good, "skipList:" + good, "skiplist=" + bad,
		"skiplist=" + long, "skiplist=" + sha256, "skiplist=" + dir, "skiplist=" + filepath.Join(dir, "none"),
		"skiplist=", "badName=warn,foo",
	}
	repo := newRepo(t, object.SHA1)
	for _, l := range lists {
		_, errOut, _ := repo.run(nil, "unpack-objects", "--strict="+l)
		want := strings.SplitN(errOut, "\n", 2)[0]
		got := "fatal: early EOF" // what git says once the list is fine
		if _, err := Parse(l); err != nil {
			got = "fatal: " + err.Error()
		}
		if got != want {
			t.Errorf("--strict=%s:\n ours %s\n  git %s", l, got, want)
		}
	}
}

func TestParseSeverities(t *testing.T) {
	o, err := Parse("badName=warn,MISSINGEMAIL:ignore|extraHeaderEntry=error badFilemode=error")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]Severity{
		"badName": Warn, "missingEmail": Ignore, "extraHeaderEntry": Error, "badFilemode": Error,
		"nulInHeader": Error, "hasDotgit": Error, "gitmodulesParse": Info, "missingTaggerEntry": Info,
	} {
		if got, ok := o.Severity(id); !ok || got != want {
			t.Errorf("%s: got %v, want %v", id, got, want)
		}
	}
	var zero Options
	if s, _ := zero.Severity("nullSha1"); s != Error {
		t.Errorf("zero Options: nullSha1 is %v, want error (strict)", s)
	}
	if s, _ := zero.Severity("extraHeaderEntry"); s != Ignore {
		t.Errorf("zero Options: extraHeaderEntry is %v, want ignore", s)
	}
	if err := zero.SetSeverity("nulInHeader", Warn); err == nil || err.Error() != "Cannot demote nulInHeader to warn" {
		t.Errorf("demoting a fatal message: %v", err)
	}
	if len(MsgIDs()) != int(numMsgs) || MsgIDs()[0] != "nulInHeader" || MsgIDs()[numMsgs-1] != "extraHeaderEntry" {
		t.Errorf("MsgIDs: %v", MsgIDs())
	}
}

// TestSkipListAgainstGit checks that skipped objects report nothing, but a
// skipped tree still has its .gitmodules blob checked, as in git.
func TestSkipListAgainstGit(t *testing.T) {
	f := object.SHA1
	text := "[submodule \"..\"]\n\tpath = -x\n"
	objs := []obj{blob(text), tree("100644", ".gitmodules", hexID(f, object.Blob, text), "100644", ".git", hexID(f, object.Blob, text))}
	bad := commit("tree 1234\n")
	treeID, _ := f.Sum(object.Tree, objs[1].data)
	blobID, _ := f.Sum(object.Blob, objs[0].data)
	dir := t.TempDir()
	skipTree := filepath.Join(dir, "tree")
	os.WriteFile(skipTree, []byte(treeID.String()+"\n"), 0o644)
	skipBlob := filepath.Join(dir, "blob")
	os.WriteFile(skipBlob, []byte(blobID.String()+"\n"), 0o644)
	runOracleCases(t, f, []oracleCase{
		{name: "none skipped", objs: objs, noUnpack: true},
		{name: "tree skipped", objs: objs, strict: "skiplist=" + skipTree},
		{name: "blob skipped", objs: objs, strict: "skiplist=" + skipBlob, noUnpack: true},
	})
	o := Strict()
	id, _ := f.Sum(bad.t, bad.data)
	o.Skip(id)
	if p := o.Check(id, bad.t, bad.data, f); len(p) != 0 || !o.Skipped(id) {
		t.Errorf("skipped commit reported %v", p)
	}
}

func TestProblemStderr(t *testing.T) {
	id, _ := object.ParseID(strings.Repeat("ab", 20))
	p := Problem{ID: id, Type: object.Blob, MsgID: "gitmodulesUrl", Text: "disallowed submodule url: a\x01\tb\nc\x7f", Severity: Error}
	want := "error: object " + id.String() + ": gitmodulesUrl: disallowed submodule url: a?\tb\nc?\n"
	if got := p.Stderr(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	p.Text, p.Severity, p.Detail = strings.Repeat("x", 5000), Warn, "too-short tree object"
	got := p.Stderr()
	if !strings.HasPrefix(got, "error: too-short tree object\nwarning: ") || len(got) != len("error: too-short tree object\n")+4096 {
		t.Errorf("long message: %d bytes: %.80q", len(got), got)
	}
}
