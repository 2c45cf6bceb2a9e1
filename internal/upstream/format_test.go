package upstream

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

var (
	oid256a = strings.Repeat("a", 64)
	oid256b = strings.Repeat("b", 64)
)

// TestAdvertisementSHA256: a v0 advertisement whose first line names
// object-format=sha256 is read in 64-digit ids, and the sink is told the
// format before any ref; an id of SHA-1's length (or one of SHA-256's in
// a SHA-1 advertisement) is refused, on a ref line and a shallow line, as
// connect.c refuses it; a format git does not know is refused in git's
// words.
func TestAdvertisementSHA256(t *testing.T) {
	l := &refList{}
	a, err := readAdvertisement(reader(string(gittest.Advertisement(
		oid256a+" HEAD\x00multi_ack object-format=sha256 symref=HEAD:refs/heads/main\n",
		oid256a+" refs/heads/main\n",
		oid256b+" refs/tags/t\n",
		oid256a+" refs/tags/t^{}\n",
		"shallow "+oid256b+"\n",
	))), l)
	if err != nil {
		t.Fatal(err)
	}
	want := "@refs/heads/main HEAD|" + oid256a + " HEAD|" + oid256a + " refs/heads/main|" + oid256b + " refs/tags/t|" + oid256a + " refs/tags/t^{}"
	if a.format != object.SHA256 || l.format != object.SHA256 || strings.Join(l.got, "|") != want || len(a.shallows) != 1 || a.shallows[0].String() != oid256b {
		t.Errorf("format %v, sink told %v, got %q, shallows %v", a.format, l.format, l.got, a.shallows)
	}
	kept, err := readAdvertisement(reader(string(gittest.Advertisement(oid256a+" refs/heads/main\x00object-format=sha256\n"))), nil)
	if err != nil || kept.format != object.SHA256 || kept.kept.Refs["refs/heads/main"].String() != oid256a {
		t.Errorf("kept: %v %+v", err, kept)
	}
	empty, err := readAdvertisement(reader(string(gittest.Advertisement(strings.Repeat("0", 64)+" capabilities^{}\x00object-format=sha256\n"))), nil)
	if err != nil || empty.format != object.SHA256 || !empty.empty() {
		t.Errorf("empty sha256: %v %+v", err, empty)
	}
	for _, tc := range []struct{ lines []string }{
		{[]string{oid256a + " HEAD\x00object-format=sha256\n", oid1 + " refs/heads/short\n"}},
		{[]string{oid1 + " HEAD\x00object-format=sha256\n"}},
		{[]string{oid256a + " HEAD\x00object-format=sha256\n", "shallow " + oid1 + "\n"}},
		{[]string{oid256a + " HEAD\x00multi_ack\n"}},
		{[]string{oid1 + " HEAD\x00multi_ack\n", oid256a + " refs/heads/long\n"}},
	} {
		_, err := readAdvertisement(reader(string(gittest.Advertisement(tc.lines...))), &refList{})
		if err == nil || !strings.HasPrefix(err.Error(), "protocol error: ") {
			t.Errorf("%q: %v", tc.lines, err)
		}
	}
	// A shallow line's id is read as connect.c's process_shallow reads it
	// (get_oid_hex_algop): its first digits, a tail ignored — so a
	// SHA-256 id on a SHA-1 advertisement's shallow line is its first 40.
	a, err = readAdvertisement(reader(string(gittest.Advertisement(oid1+" HEAD\x00multi_ack\n", "shallow "+oid256a+"\n"))), &refList{})
	if err != nil || len(a.shallows) != 1 || a.shallows[0].String() != oid256a[:40] {
		t.Errorf("a shallow line with a tail: %v %v", err, a)
	}
	for caps, want := range map[string]string{
		"object-format=md5\x1b": "unknown object format 'md5?' specified by server",
		"object-format":         "unknown object format '' specified by server",
	} {
		_, err := readAdvertisement(reader(string(gittest.Advertisement(oid1+" HEAD\x00"+caps+"\n"))), nil)
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", caps, err, want)
		}
	}
}

// TestV2SHA256: a v2 server's object-format=sha256 makes the session's
// format; its requests echo it, as fetch-pack's and ls-refs's do (a v2
// upload-pack takes a request without it for SHA-1 and dies); ls-refs and
// shallow-info lines are read in 64-digit ids, and SHA-1's are refused in
// git's words.
func TestV2SHA256(t *testing.T) {
	a, err := readV2(reader(pktsV2("version 2\n", "agent=git/2.39.5\n", "ls-refs=unborn\n", "fetch=shallow\n", "object-format=sha256\n", "")))
	if err != nil || a.format != object.SHA256 {
		t.Fatalf("%v, format %v", err, a.format)
	}
	w := &recorder{answer: pktsV2(oid256a+" HEAD symref-target:refs/heads/main\n", oid256b+" refs/tags/t peeled:"+oid256a+"\n", "")}
	l := &refList{}
	if err := a.lsRefs(w, l); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.sent, pktsV2("object-format=sha256\n", "0001")) || !strings.HasPrefix(w.sent, pktsV2("command=ls-refs\n")) {
		t.Errorf("ls-refs request %q", w.sent)
	}
	want := "@refs/heads/main HEAD|" + oid256a + " HEAD|" + oid256b + " refs/tags/t|" + oid256a + " refs/tags/t^{}"
	if strings.Join(l.got, "|") != want {
		t.Errorf("ls-refs gave %q", l.got)
	}
	for _, bad := range []string{oid1 + " refs/heads/a\n", oid256a + " refs/tags/t peeled:" + oid1 + "\n", oid256a + "a refs/heads/a\n"} {
		err := readRefsV2(reader(pktsV2(bad, "")), object.SHA256, &refList{})
		if err == nil || err.Error() != "invalid ls-refs response: "+strings.TrimSuffix(bad, "\n") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	want256, _ := object.ParseID(oid256a)
	w = &recorder{answer: pktsV2("shallow-info\n", "shallow "+oid256b+"\n", "0001", "packfile\n", "")}
	u := &Upload{r: &Remote{URL: "u"}, t: w, d: a}
	p, err := u.Fetch(&FetchRequest{Wants: []object.ID{want256}, Shallows: []object.ID{want256}, Depth: 1})
	if err != nil || len(p.Shallow) != 1 || p.Shallow[0].String() != oid256b {
		t.Fatalf("%v: %+v", err, p)
	}
	for _, line := range []string{"object-format=sha256\n", "want " + oid256a + "\n", "shallow " + oid256a + "\n"} {
		if !strings.Contains(w.sent, pktsV2(line)) {
			t.Errorf("the fetch request lacks %q: %q", line, w.sent)
		}
	}
	err = (&Pack{}).readSections(reader(pktsV2("shallow-info\n", "shallow "+oid1+"\n", "0001")), object.SHA256)
	if err == nil || err.Error() != "invalid shallow line: shallow "+oid1 {
		t.Errorf("a SHA-1 shallow line: %v", err)
	}
}

// TestCheckFormat: a fetch or push between formats is refused with the
// fatal line git 2.39 gives over the same protocol.
func TestCheckFormat(t *testing.T) {
	caps := func(s string) capability.List {
		var l capability.List
		capability.DecodeList([]byte(s), &l)
		return l
	}
	v0 := func(s string) *Upload {
		f, _ := serverFormat(ptr(caps(s)))
		return &Upload{d: &advert{caps: caps(s), format: f}}
	}
	v2 := func(s string) *Upload {
		f, _ := serverFormat(ptr(caps(s)))
		return &Upload{d: &v2{caps: caps(s), format: f}}
	}
	const (
		v0Msg   = "Server does not support this repository's object format"
		pushMsg = "the receiving end does not support this repository's hash algorithm"
	)
	for _, tc := range []struct {
		u     *Upload
		local object.Format
		want  string
	}{
		{v0("object-format=sha256"), object.SHA256, ""},
		{v0("multi_ack"), object.SHA1, ""},
		{v0("object-format=sha1"), object.SHA1, ""},
		{v0("object-format=sha256"), object.SHA1, v0Msg},
		{v0("multi_ack"), object.SHA256, v0Msg},
		{v2("object-format=sha256"), object.SHA256, ""},
		{v2("fetch"), object.SHA1, ""},
		{v2("object-format=sha256"), object.SHA1, "mismatched algorithms: client sha1; server sha256"},
		{v2("object-format=sha1"), object.SHA256, "mismatched algorithms: client sha256; server sha1"},
		{v2("fetch"), object.SHA256, "the server does not support algorithm 'sha256'"},
	} {
		err := tc.u.CheckFormat(tc.local)
		if got := errText(err); got != tc.want {
			t.Errorf("%v into %v: %q, want %q", tc.u.Format(), tc.local, got, tc.want)
		}
		adv, ok := tc.u.d.(*advert)
		if !ok {
			continue
		}
		// receive-pack's advertisement names its format as upload-pack's.
		p := &Receive{adv: adv}
		want := ""
		if tc.want != "" {
			want = pushMsg
		}
		if got := errText(p.CheckFormat(tc.local)); got != want {
			t.Errorf("push %v to %v: %q, want %q", tc.local, p.Format(), got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
