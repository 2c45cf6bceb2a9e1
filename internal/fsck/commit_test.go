package fsck

import (
	"strings"
	"testing"

	"github.com/git-durable/git-durable/object"
)

func commit(s string) obj { return obj{object.Commit, []byte(s)} }

// commitBase returns a blob, a tree holding it, and the "tree <hex>\n"
// line of a commit pointing at that tree.
func commitBase(f object.Format) (objs []obj, treeLine string) {
	e := hexID(f, object.Blob, "")
	tr := tree("100644", "a", e)
	id, _ := f.Sum(tr.t, tr.data)
	return []obj{blob(""), tr}, "tree " + id.String() + "\n"
}

func TestCommitAgainstGit(t *testing.T) {
	f := object.SHA1
	base, T := commitBase(f)
	const au, co = "author A U Thor <a@example.com> 1112911993 -0700\n", "committer C O <c@example.com> 1112912053 +0200\n"
	good := T + au + co + "\nmsg\n"
	goodID, _ := f.Sum(object.Commit, []byte(good))
	P := "parent " + goodID.String() + "\n"
	with := func(s string) []obj { return append(append([]obj{}, base...), commit(s)) }
	ident := func(who string) []obj { return with(T + "author " + who + "\n" + co + "\nmsg\n") }
	cases := []oracleCase{
		{name: "clean", objs: with(good)},
		{name: "clean with parent and headers", objs: append(with(good), commit(T+P+au+co+"encoding UTF-8\ngpgsig -----BEGIN\n x\n -----END\n\nmsg\n"))},
		{name: "no body", objs: with(T + au + co)},
		{name: "upper-case hex", objs: with(T[:5] + strings.ToUpper(T[5:]) + au + co + "\n")},
		{name: "missingAuthor", objs: with(T + co + "\nmsg\n")},
		{name: "multipleAuthors", objs: with(T + au + au + co + "\nmsg\n")},
		{name: "multipleAuthors demoted", objs: with(T + au + au + co + "\nmsg\n"), strict: "multipleAuthors=warn"},
		{name: "missingCommitter", objs: with(T + au + "\nmsg\n")},
		{name: "committer before author", objs: with(T + co + au + "\nmsg\n")},
		{name: "missingNameBeforeEmail", objs: ident("<a@b> 1 +0000")},
		{name: "badName", objs: ident("A > B <a@b> 1 +0000")},
		{name: "missingEmail", objs: ident("A 1 +0000")},
		{name: "missingEmail demoted", objs: ident("A 1 +0000"), strict: "missingEmail=warn"},
		{name: "missingSpaceBeforeEmail", objs: ident("A<a@b> 1 +0000")},
		{name: "badEmail", objs: ident("A <a<b> 1 +0000")},
		{name: "badEmail unterminated", objs: ident("A <a@b 1 +0000")},
		{name: "missingSpaceBeforeDate", objs: ident("A <a@b>1 +0000")},
		{name: "zeroPaddedDate", objs: ident("A <a@b> 01 +0000")},
		{name: "zero date", objs: ident("A <a@b> 0 +0000")},
		{name: "badDateOverflow", objs: ident("A <a@b> 9223372036854775808 +0000")},
		{name: "max date", objs: ident("A <a@b> 9223372036854775807 +0000")},
		{name: "badDateOverflow huge", objs: ident("A <a@b> 99999999999999999999999 +0000")},
		{name: "badDateOverflow negative", objs: ident("A <a@b> -5 +0000")},
		{name: "plus date", objs: ident("A <a@b> +5 +0000")},
		{name: "two spaces before date", objs: ident("A <a@b>  5 +0000")},
		{name: "badDate letters", objs: ident("A <a@b> x +0000")},
		{name: "badDate suffix", objs: ident("A <a@b> 5x +0000")},
		{name: "badDate no zone", objs: ident("A <a@b> 5")},
		{name: "badTimezone short", objs: ident("A <a@b> 5 +000")},
		{name: "badTimezone long", objs: ident("A <a@b> 5 +00000")},
		{name: "badTimezone sign", objs: ident("A <a@b> 5 0000")},
		{name: "badTimezone letter", objs: ident("A <a@b> 5 +00a0")},
		{name: "date crosses line", objs: with(T + "author A <a@b> \n\n12 +0000\n")},
		{name: "empty name", objs: ident(" <a@b> 5 +0000")},
		{name: "nulInHeader", objs: with(T + au + "committer A\x00 <c> 1 +0000\n\nmsg\n")},
		{name: "unterminatedHeader", objs: with(T + au + strings.TrimSuffix(co, "\n"))},
		{name: "nulInCommit", objs: with(good + "a\x00b\n")},
		{name: "nulInCommit ignored", objs: with(good + "a\x00b\n"), strict: "nulInCommit=ignore"},
		{name: "ident errors demoted", objs: with(T + "author A<a> 01 +0000\nauthor B <b\n" + "committer x\n\n"), strict: "missingSpaceBeforeEmail=warn,badEmail=warn,multipleAuthors=ignore,missingEmail=warn"},
	}
	runOracleCases(t, f, cases)
}

func TestCommitSHA256AgainstGit(t *testing.T) {
	f := object.SHA256
	base, T := commitBase(f)
	runOracleCases(t, f, []oracleCase{
		{name: "clean", objs: append(base, commit(T+"author A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nm\n"))},
		{name: "badEmail", objs: append(base, commit(T+"author A <a 1 +0000\ncommitter A <a> 1 +0000\n\nm\n"))},
	})
}

// git refuses to parse these commits before fsck sees them ("bogus commit
// object", "bad parents"), so no git command prints their fsck messages;
// the expectations come from git's fsck.c texts.
func TestCommitUnparseable(t *testing.T) {
	f := object.SHA1
	_, T := commitBase(f)
	rest := "author A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nm\n"
	cases := []struct {
		name, data string
		strict     string
		want       []string
	}{
		{"missingTree", rest, "", []string{"error: missingTree: invalid format - expected 'tree' line"}},
		{"missingTree after blank", "\n" + T + rest, "", []string{"error: missingTree: invalid format - expected 'tree' line"}},
		{"badTreeSha1", "tree 123\n" + rest, "", []string{"error: badTreeSha1: invalid 'tree' line format - bad sha1"}},
		{"badTreeSha1 trailing", strings.TrimSuffix(T, "\n") + "x\n" + rest, "", []string{"error: badTreeSha1: invalid 'tree' line format - bad sha1"}},
		{"badTreeSha1 demoted", "tree zz\n" + rest, "badTreeSha1=warn", []string{"warning: badTreeSha1: invalid 'tree' line format - bad sha1"}},
		{"badParentSha1", T + "parent 12\n" + rest, "", []string{"error: badParentSha1: invalid 'parent' line format - bad sha1"}},
		{"badParentSha1 ignored", T + "parent 12\nparent 34\n" + rest, "badParentSha1=ignore", nil},
		{"unknown type reported by Check", "", "", nil},
	}
	for _, c := range cases[:len(cases)-1] {
		t.Run(c.name, func(t *testing.T) {
			o, err := Parse(c.strict)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := f.Sum(object.Commit, []byte(c.data))
			var got []string
			for _, p := range o.Check(id, object.Commit, []byte(c.data), f) {
				got = append(got, map[Severity]string{Error: "error: ", Warn: "warning: "}[p.Severity]+p.MsgID+": "+p.Text)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if _, err := Links(object.Commit, []byte(c.data), f); err == nil {
				t.Errorf("Links accepted a commit git cannot parse")
			}
		})
	}
	t.Run("unknownType", func(t *testing.T) {
		p := Strict().Check(object.ID{}, object.Type(5), nil, f)
		if len(p) != 1 || p[0].MsgID != "unknownType" || p[0].Text != "unknown type '5' (internal fsck error)" {
			t.Errorf("got %+v", p)
		}
	})
}
