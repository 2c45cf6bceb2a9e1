package fsck

import (
	"regexp"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/object"
)

func tagObj(s string) obj { return obj{object.Tag, []byte(s)} }

func TestTagAgainstGit(t *testing.T) {
	f := object.SHA1
	base, T := commitBase(f)
	c := commit(T + "author A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nm\n")
	cid, _ := f.Sum(c.t, c.data)
	O := "object " + cid.String() + "\ntype commit\n"
	objs := append(base, c)
	with := func(s string) []obj { return append(append([]obj{}, objs...), tagObj(s)) }
	const tg = "tagger T <t@example.com> 1112912053 -0700\n"
	cases := []oracleCase{
		{name: "clean", objs: with(O + "tag v1.0\n" + tg + "\nmsg\n")},
		{name: "clean no body", objs: with(O + "tag v1.0\n" + tg)},
		{name: "clean signed", objs: with(O + "tag v1.0\n" + tg + "\nmsg\n-----BEGIN PGP SIGNATURE-----\nx\n")},
		{name: "missingTaggerEntry", objs: with(O + "tag v1.0\n\nmsg\n")},
		{name: "missingTaggerEntry error", objs: with(O + "tag v1.0\n\nmsg\n"), strict: "missingTaggerEntry=error"},
		{name: "badTagName dotdot", objs: with(O + "tag v..1\n" + tg + "\n")},
		{name: "badTagName lock", objs: with(O + "tag a/b.lock\n" + tg + "\n")},
		{name: "badTagName space", objs: with(O + "tag a b\n" + tg + "\n")},
		{name: "badTagName at-brace", objs: with(O + "tag a@{b\n" + tg + "\n")},
		{name: "badTagName trailing dot", objs: with(O + "tag a.\n" + tg + "\n")},
		{name: "badTagName leading dot", objs: with(O + "tag x/.a\n" + tg + "\n")},
		{name: "badTagName empty component", objs: with(O + "tag a//b\n" + tg + "\n")},
		{name: "badTagName empty", objs: with(O + "tag \n" + tg + "\n")},
		{name: "tag name at", objs: with(O + "tag @\n" + tg + "\n")},
		{name: "tag name unicode", objs: with(O + "tag v\u00e9-1_x+y\n" + tg + "\n")},
		{name: "badTagName error", objs: with(O + "tag a~1\n" + tg + "\n"), strict: "badTagName=error"},
		{name: "tagger badEmail", objs: with(O + "tag v1\ntagger T <t 1 +0000\n\nmsg\n")},
		{name: "tagger badTimezone", objs: with(O + "tag v1\ntagger T <t> 1 +0\n\nmsg\n")},
		{name: "extraHeaderEntry ignored", objs: with(O + "tag v1\n" + tg + "foo bar\n\nmsg\n")},
		{name: "extraHeaderEntry", objs: with(O + "tag v1\n" + tg + "foo bar\n\nmsg\n"), strict: "extraHeaderEntry=error"},
		{name: "extraHeaderEntry after bad ident", objs: with(O + "tag v1\ntagger T <t> x\nfoo\n\nmsg\n"), strict: "extraHeaderEntry=warn"},
		{name: "extraHeaderEntry without tagger", objs: with(O + "tag v1\nfoo\n\nmsg\n"), strict: "extraHeaderEntry=error"},
		{name: "nulInHeader", objs: with(O + "tag v1\n" + "tagger T\x00 <t> 1 +0000\n\nmsg\n")},
		{name: "unterminatedHeader", objs: with(O + "tag v1\n" + strings.TrimSuffix(tg, "\n"))},
	}
	runOracleCases(t, f, cases)
}

var mktagLine = regexp.MustCompile(`^(?:error|warning): tag input does not pass fsck: (.*)$`)

// TestTagAgainstMktag covers the tags git's parser refuses (so fsck never
// sees them) with `git mktag`, which runs fsck's tag checks on its input
// before anything else, treating every message as an error.
func TestTagAgainstMktag(t *testing.T) {
	f := object.SHA1
	e := hexID(f, object.Blob, "")
	O := "object " + e + "\n"
	const tg = "tagger T <t> 1 +0000\n"
	cases := []string{
		O + "type blob\ntag v1\n" + tg + "\nmsg\n",
		"type blob\ntag v1\n" + tg + "\n",
		"object 12\ntype blob\ntag v1\n" + tg + "\n",
		"object " + e + "x\ntype blob\ntag v1\n" + tg + "\n",
		"object " + strings.ToUpper(e) + "\ntype blob\ntag v1\n" + tg + "\n",
		O + "tag v1\n" + tg + "\n",
		O + "typ blob\n" + tg + "\n",
		O + "type blobby\ntag v1\n" + tg + "\n",
		O + "type ofs-delta\ntag v1\n" + tg + "\n",
		O + "type \ntag v1\n" + tg + "\n",
		O + "type blob\n" + tg + "\n",
		O + "type blob\ntag v1\n\n",
		O + "type blob\ntag v:1\n" + tg + "\n",
		O + "type blob\ntag v1\n" + "tagger <t> 1 +0000\n\n",
		O + "type blob\ntag v1\n" + tg + "x\n\n",
		O + "type blob\ntag v1\n" + tg,
		O + "type blob\ntag v1\n" + "tagger T <t> 1 +0000",
		O + "type blob\ntag v1\x00\n" + tg + "\n",
	}
	repo := newRepo(t, f)
	repo.write(blob(""))
	seen := 0
	for _, c := range cases {
		_, errOut, _ := repo.run([]byte(c), "mktag")
		var want []string
		for _, l := range strings.Split(errOut, "\n") {
			if m := mktagLine.FindStringSubmatch(l); m != nil {
				want = append(want, m[1])
			}
		}
		if len(want) > 0 {
			seen++
		}
		// mktag stops at the first message whatever its level, and warns
		// about extra headers; make every message an error to match.
		o := Strict()
		for _, id := range MsgIDs() {
			if s, _ := o.Severity(id); s == Info || s == Warn {
				o.SetSeverity(id, Error)
			}
		}
		o.SetSeverity("extraHeaderEntry", Error)
		id, _ := f.Sum(object.Tag, []byte(c))
		var got []string
		for _, p := range o.Check(id, object.Tag, []byte(c), f) {
			got = append(got, p.MsgID+": "+p.Text)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("tag %q:\n ours %q\n  git %q", c, got, want)
		}
	}
	if seen < len(cases)-3 {
		t.Errorf("git mktag complained about only %d of %d tags: is the oracle working?", seen, len(cases))
	}
}
