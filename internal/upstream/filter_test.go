package upstream

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"

	"github.com/git-durable/git-durable/object"
)

// TestFilterRequest: a partial clone's filter goes into the request as git's
// fetch-pack sends it — over v0 the "filter" capability on the first want
// and a "filter <spec>" line before the flush, over v2 an argument — only
// when the server offers filtering; else git's warning (twice over v0, as
// fetch-pack prints it) and no filter.
func TestFilterRequest(t *testing.T) {
	want, _ := object.ParseID(oid1)
	const spec = "combine:blob:limit=1024+tree:2"
	warning := "warning: filtering not recognized by server, ignoring\n"
	for _, tc := range []struct {
		name, caps string
		v2         bool
		sent       []string // in the request
		notSent    []string
		stderr     string
	}{
		{name: "v0", caps: "side-band-64k ofs-delta filter", sent: []string{" filter", "filter " + spec + "\n0000"}},
		{name: "v0 without filter", caps: "side-band-64k ofs-delta", notSent: []string{"filter"}, stderr: warning + warning},
		{name: "v2", caps: "fetch=shallow filter", v2: true, sent: []string{"filter " + spec + "\n"}},
		{name: "v2 without filter", caps: "fetch=shallow", v2: true, notSent: []string{"filter"}, stderr: warning},
	} {
		var stderr bytes.Buffer
		w := &recorder{answer: "0008NAK\n"}
		u := &Upload{r: &Remote{URL: "u", o: Options{Stderr: &stderr}}, t: w}
		if tc.v2 {
			w.answer = pktsV2("packfile\n", "")
			a, err := readV2(reader(pktsV2("version 2\n", "ls-refs\n", tc.caps+"\n", "")))
			if err != nil {
				t.Fatal(err)
			}
			u.d = a
		} else {
			a := &advert{format: object.SHA1}
			capability.DecodeList([]byte(tc.caps), &a.caps)
			u.d = a
		}
		if _, err := u.Fetch(&FetchRequest{Wants: []object.ID{want}, Filter: spec}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, s := range tc.sent {
			if !strings.Contains(w.sent, s) {
				t.Errorf("%s: %q not in the request %q", tc.name, s, w.sent)
			}
		}
		for _, s := range tc.notSent {
			if strings.Contains(w.sent, s) {
				t.Errorf("%s: %q in the request %q", tc.name, s, w.sent)
			}
		}
		if stderr.String() != tc.stderr {
			t.Errorf("%s: stderr %q, want %q", tc.name, stderr.String(), tc.stderr)
		}
	}
}

// TestFetchOnly: a fetch of exactly the wants (heal by id) asks for one
// commit deep and, where the server filters, for no trees or blobs below
// the wants — no haves, no shallow lines, no warning where the server
// lacks either — and the answer's shallow lines are not the repository's.
func TestFetchOnly(t *testing.T) {
	want, _ := object.ParseID(oid1)
	for _, tc := range []struct {
		caps    string
		sent    []string
		notSent []string
	}{
		{caps: "fetch=shallow filter", sent: []string{"want " + oid1 + "\n", "deepen 1\n", "filter tree:0\n"}},
		{caps: "fetch=shallow", sent: []string{"deepen 1\n"}, notSent: []string{"filter"}},
		{caps: "fetch", notSent: []string{"deepen", "filter"}},
	} {
		var stderr bytes.Buffer
		w := &recorder{answer: pktsV2("shallow-info\n", "shallow "+oid1+"\n", "0001", "packfile\n", "")}
		u := &Upload{r: &Remote{URL: "u", o: Options{Stderr: &stderr}}, t: w}
		a, err := readV2(reader(pktsV2("version 2\n", "ls-refs\n", tc.caps+"\n", "")))
		if err != nil {
			t.Fatal(err)
		}
		u.d = a
		p, err := u.Fetch(&FetchRequest{Wants: []object.ID{want}, Only: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.caps, err)
		}
		for _, s := range tc.sent {
			if !strings.Contains(w.sent, s) {
				t.Errorf("%s: %q not in the request %q", tc.caps, s, w.sent)
			}
		}
		for _, s := range append(tc.notSent, "have ", "shallow ") {
			if strings.Contains(w.sent, s) {
				t.Errorf("%s: %q in the request %q", tc.caps, s, w.sent)
			}
		}
		if len(p.Shallow)+len(p.Theirs)+len(p.Unshallow) != 0 || stderr.Len() != 0 {
			t.Errorf("%s: %+v, stderr %q", tc.caps, p, stderr.String())
		}
	}
}

// TestFetchOnlyInOrder: a fetch of exactly the wants sends them in the
// order asked (go-git would sort them), each once.
func TestFetchOnlyInOrder(t *testing.T) {
	hexes := []string{strings.Repeat("f", 40), strings.Repeat("1", 40), strings.Repeat("a", 40)}
	var wants []object.ID
	for _, h := range hexes {
		id, _ := object.ParseID(h)
		wants = append(wants, id)
	}
	w := &recorder{answer: pktsV2("packfile\n", "")}
	u := &Upload{r: &Remote{URL: "u", o: Options{Stderr: io.Discard}}, t: w}
	a, err := readV2(reader(pktsV2("version 2\n", "ls-refs\n", "fetch=shallow filter\n", "")))
	if err != nil {
		t.Fatal(err)
	}
	u.d = a
	if _, err := u.Fetch(&FetchRequest{Wants: wants, Only: true}); err != nil {
		t.Fatal(err)
	}
	at := -1
	for _, h := range hexes {
		i := strings.Index(w.sent, "want "+h+"\n")
		if i <= at || strings.Count(w.sent, "want "+h) != 1 {
			t.Fatalf("want %s out of order or not once in %q", h, w.sent)
		}
		at = i
	}
	if !strings.Contains(w.sent, "deepen 1\n") || !strings.Contains(w.sent, "filter tree:0\n") || !strings.Contains(w.sent, "done\n") {
		t.Errorf("request %q", w.sent)
	}
}
