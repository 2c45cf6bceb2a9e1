package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

const oid2 = "2222222222222222222222222222222222222222"

// pktsV2 encodes lines as pkt-lines: "" is a flush, "0001" a delim.
func pktsV2(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		switch l {
		case "":
			b.WriteString("0000")
		case "0001":
			b.WriteString("0001")
		default:
			fmt.Fprintf(&b, "%04x%s", len(l)+4, l)
		}
	}
	return b.String()
}

func reader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

// TestReadV2: a v2 capability advertisement as git 2.39's upload-pack
// sends it, and the ones git refuses in its own words.
func TestReadV2(t *testing.T) {
	adv := pktsV2("version 2\n", "agent=git/2.39.5\n", "ls-refs=unborn\n", "fetch=shallow wait-for-done filter\n",
		"server-option\n", "object-format=sha1\n", "object-info\n", "")
	in := reader(adv)
	if v2, err := transport.IsV2(in); !v2 || err != nil {
		t.Fatalf("isV2: %v %v", v2, err)
	}
	a, err := readV2(in)
	if err != nil {
		t.Fatal(err)
	}
	if !a.feature("fetch", "shallow") || !a.feature("fetch", "filter") || !a.feature("ls-refs", "unborn") || a.feature("fetch", "unborn") || a.format != object.SHA1 {
		t.Errorf("capabilities %q", a.caps.String())
	}
	if v2, _ := transport.IsV2(reader(string(gittest.Advertisement(oid1 + " HEAD\x00multi_ack\n")))); v2 {
		t.Error("a v0 advertisement taken for v2")
	}
	for _, tc := range []struct{ lines, want string }{
		{"fetch=shallow\n", "server doesn't support 'ls-refs'"},
		{"ls-refs\n", "server doesn't support 'fetch'"},
		{"ls-refs\nfetch\nobject-format=bogus\x1b\n", "unknown object format 'bogus?' specified by server"},
		{"ls-refs\nfetch\nobject-format\n", "unknown object format '' specified by server"},
	} {
		lines := append([]string{"version 2\n"}, strings.SplitAfter(strings.TrimSuffix(tc.lines, "\n"), "\n")...)
		for i := range lines {
			if !strings.HasSuffix(lines[i], "\n") {
				lines[i] += "\n"
			}
		}
		_, err := readV2(reader(pktsV2(append(lines, "")...)))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %q", tc.lines, err, tc.want)
		}
	}
	if _, err := readV2(reader(adv[:len(adv)-4])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("no flush: %v", err)
	}
}

// TestReadRefsV2: an ls-refs answer reaches the sink line by line, a
// symref target before its ref, a peeled tag after it as "<name>^{}"; an
// unborn HEAD is left out; a name is passed as it came (the list checks
// it), and what git cannot read is refused in its words.
func TestReadRefsV2(t *testing.T) {
	answer := pktsV2(
		oid1+" HEAD symref-target:refs/heads/main\n",
		oid1+" refs/heads/main\n",
		oid2+" refs/tags/v1 peeled:"+oid1+"\n",
		"unborn refs/remotes/x/HEAD symref-target:refs/remotes/x/main\n",
		oid1+" refs/heads/a\nlock /tmp/victim\n",
		"")
	l := &refList{}
	if err := readRefsV2(reader(answer), object.SHA1, l); err != nil {
		t.Fatal(err)
	}
	want := []string{"@refs/heads/main HEAD", oid1 + " HEAD", oid1 + " refs/heads/main", oid2 + " refs/tags/v1",
		oid1 + " refs/tags/v1^{}", oid1 + " refs/heads/a\nlock"}
	if strings.Join(l.got, "|") != strings.Join(want, "|") {
		t.Errorf("sink got %q", l.got)
	}
	for _, bad := range []string{"nonsense\n", "xyz refs/heads/a\n", oid1 + "1 refs/heads/a\n", oid1 + " refs/tags/t peeled:12\n"} {
		err := readRefsV2(reader(pktsV2(bad, "")), object.SHA1, &refList{})
		if err == nil || !strings.HasPrefix(err.Error(), "invalid ls-refs response: ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if err := readRefsV2(reader(pktsV2(oid1+" refs/heads/a\n")), object.SHA1, &refList{}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("no flush: %v", err)
	}
}

// TestReadSections: the sections of a v2 answer to a fetch with done, in
// fetch-pack's order; what the helper did not ask for, and what git would
// not take, are refused.
func TestReadSections(t *testing.T) {
	p := &Pack{}
	in := reader(pktsV2("shallow-info\n", "shallow "+oid1+"\n", "unshallow "+oid2+"\n", "0001", "packfile\n") + "PACK")
	if err := p.readSections(in, object.SHA1); err != nil {
		t.Fatal(err)
	}
	if len(p.Shallow) != 1 || p.Shallow[0].String() != oid1 || len(p.Unshallow) != 1 || p.Unshallow[0].String() != oid2 {
		t.Errorf("shallow %v, unshallow %v", p.Shallow, p.Unshallow)
	}
	if rest, _ := io.ReadAll(in); string(rest) != "PACK" {
		t.Errorf("after the header: %q", rest)
	}
	for _, tc := range []struct{ in, want string }{
		{pktsV2("packfile-uris\n", oid1+" https://elsewhere/p.pack\n", "0001", "packfile\n"), "the upstream sent a packfile-uris section, which the helper did not ask for"},
		{pktsV2("wanted-refs\n", oid1+" refs/heads/main\n", "0001", "packfile\n"), "the upstream sent a wanted-refs section, which the helper did not ask for"},
		{pktsV2("acknowledgments\n", "NAK\n", ""), "expected 'packfile', received 'acknowledgments'"},
		{pktsV2("shallow-info\n", "0001", "shallow-info\n", "0001", "packfile\n"), "expected 'packfile', received 'shallow-info'"},
		{pktsV2("shallow-info\n", "shallow 12\n", "0001"), "invalid shallow line: shallow 12"},
		{pktsV2("shallow-info\n", "unshallow 12\n", "0001"), "invalid unshallow line: unshallow 12"}, // receive_shallow_info's words
		{pktsV2("shallow-info\n", "deepen 1\n", "0001"), "expected shallow/unshallow, got deepen 1"},
		{pktsV2("shallow-info\n", "shallow "+oid1+"\n", ""), "error processing shallow info: a flush packet"},
		{pktsV2(""), "expected 'packfile', received a flush packet"},
		{"", errNoPack.Error()},
	} {
		err := (&Pack{}).readSections(reader(tc.in), object.SHA1)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// recorder is a transport that records the request it is sent and
// answers it.
type recorder struct {
	sent   string
	answer string
}

func (r *recorder) Handshake(context.Context, string, int, transport.Advertised) error {
	return errors.New("none")
}
func (r *recorder) Request(req io.Reader, _ bool) (*bufio.Reader, error) {
	b, _ := io.ReadAll(req)
	r.sent = string(b)
	return reader(r.answer), nil
}
func (r *recorder) Explain(err error) error { return err }
func (r *recorder) URL() *transport.Address { return nil }
func (r *recorder) Persistent() bool        { return true }
func (r *recorder) Close() error            { return nil }

// TestFetchV2Request: what a v2 fetch asks, as git's fetch-pack asks it
// (the arguments in go-git's encoder's order, which v2 servers take in
// any), and how the answer's shallow lines are read.
func TestFetchV2Request(t *testing.T) {
	a, err := readV2(reader(pktsV2("version 2\n", "agent=git/2.39.5\n", "ls-refs\n", "fetch=shallow\n", "object-format=sha1\n", "")))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := object.ParseID(oid1)
	have, _ := object.ParseID(oid2)
	// The have acknowledged, the upstream ready: the pack follows in the
	// same answer, with no request that says "done".
	w := &recorder{answer: pktsV2("acknowledgments\n", "ACK "+oid2+"\n", "ready\n", "0001",
		"shallow-info\n", "shallow "+oid1+"\n", "0001", "packfile\n", "\x01PACK", "")}
	u := &Upload{r: &Remote{URL: "u"}, t: w, d: a}
	p, err := u.Fetch(&FetchRequest{Wants: []object.ID{want}, Haves: &haveList{have}, Shallows: []object.ID{have},
		Depth: 2, DeepenRelative: true, IncludeTag: true, NoProgress: true})
	if err != nil {
		t.Fatal(err)
	}
	wantReq := pktsV2("command=fetch\n", "agent="+transport.Agent+"\n", "object-format=sha1\n", "0001", "want "+oid1+"\n", "have "+oid2+"\n",
		"thin-pack\n", "no-progress\n", "include-tag\n", "ofs-delta\n", "shallow "+oid2+"\n", "deepen 2\n", "deepen-relative\n", "")
	if w.sent != wantReq {
		t.Errorf("sent\n%q\nwant\n%q", w.sent, wantReq)
	}
	if b, _ := io.ReadAll(p); string(b) != "PACK" || !p.Deepened || len(p.Shallow) != 1 || len(p.Theirs) != 0 {
		t.Errorf("pack %q, %+v", b, p)
	}
	// A v2 session takes another fetch once the answer is drained; a v0
	// one serves no object by id.
	if err := p.Drain(); err != nil || !u.ByID() || (&Upload{d: &advert{}}).ByID() {
		t.Errorf("drain %v, by id %v", err, u.ByID())
	}

	// Without deepening, and no unshallow, the lines say where the
	// upstream itself is shallow.
	w.answer = pktsV2("shallow-info\n", "shallow "+oid1+"\n", "0001", "packfile\n", "")
	p, err = u.Fetch(&FetchRequest{Wants: []object.ID{want}, DeepenSince: time.Time{}})
	if err != nil || p.Deepened || len(p.Shallow) != 0 || len(p.Theirs) != 1 || strings.Contains(w.sent, "shallow") {
		t.Errorf("%v: %+v, sent %q", err, p, w.sent)
	}
	// An unshallow makes them the deepening's answer, as in fetch-pack.
	w.answer = pktsV2("shallow-info\n", "unshallow "+oid1+"\n", "0001", "packfile\n", "")
	if p, err = u.Fetch(&FetchRequest{Wants: []object.ID{want}}); err != nil || !p.Deepened || len(p.Unshallow) != 1 {
		t.Errorf("%v: %+v", err, p)
	}
	w.answer = pktsV2("packfile\n", "")
	if _, err = u.Fetch(&FetchRequest{Wants: []object.ID{want}, DeepenSince: time.Unix(1700000000, 0)}); err != nil || !strings.Contains(w.sent, "deepen-since 1700000000\n") {
		t.Errorf("deepen-since: %v, sent %q", err, w.sent)
	}
	// Every deepening goes as its own argument, as add_shallow_requests
	// sends them: the upstream judges what goes together.
	w.answer = pktsV2("packfile\n", "")
	if _, err = u.Fetch(&FetchRequest{Wants: []object.ID{want}, Depth: 3, DeepenSince: time.Unix(1700000000, 0), DeepenNot: []string{"side", "v10"}}); err != nil ||
		!strings.HasSuffix(w.sent, pktsV2("deepen 3\n", "deepen-since 1700000000\n", "deepen-not side\n", "deepen-not v10\n", "")) {
		t.Errorf("deepen-not: %v, sent %q", err, w.sent)
	}
	u.d, _ = readV2(reader(pktsV2("version 2\n", "ls-refs\n", "fetch\n", "")))
	for _, req := range []FetchRequest{{Depth: 1}, {DeepenNot: []string{"side"}}, {DeepenSince: time.Unix(1, 0)}, {Shallows: []object.ID{have}}} {
		req.Wants = []object.ID{want}
		if _, err := u.Fetch(&req); err == nil || err.Error() != "Server does not support shallow requests" {
			t.Errorf("no shallow support, %+v: %v", req, err)
		}
	}
	if w.answer = ""; true {
		if _, err := u.Fetch(&FetchRequest{Wants: []object.ID{want}}); err == nil || err.Error() != "'u' sent no pack" {
			t.Errorf("empty answer: %v", err)
		}
	}
}

// TestProtocolVersion reads protocol.version as git does.
func TestProtocolVersion(t *testing.T) {
	none := func(string) string { return "" }
	for _, tc := range []struct {
		cfg, env string
		want     int
		err      string
	}{
		{"", "", 2, ""}, {"0", "", 0, ""}, {"1", "", 1, ""}, {"2", "0", 2, ""}, {"", "1", 1, ""},
		{"3", "", 0, "unknown value for config 'protocol.version': 3"},
		{"", "v2", 0, "unknown value for GIT_TEST_PROTOCOL_VERSION: v2"},
	} {
		var cfg repo.Config
		if tc.cfg != "" {
			cfg = repo.Config{{Key: "protocol.version", Value: tc.cfg}}
		}
		getenv := none
		if tc.env != "" {
			getenv = func(k string) string {
				if k == "GIT_TEST_PROTOCOL_VERSION" {
					return tc.env
				}
				return ""
			}
		}
		v, err := protocolVersion(cfg, getenv)
		if tc.err != "" && (err == nil || err.Error() != tc.err) || tc.err == "" && (err != nil || v != tc.want) {
			t.Errorf("%+v: %d, %v", tc, v, err)
		}
	}
	if versionFor(2, "git-receive-pack") != 0 || versionFor(1, "git-receive-pack") != 1 || versionFor(2, "git-upload-pack") != 2 {
		t.Error("versionFor")
	}
}
