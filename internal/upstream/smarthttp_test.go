package upstream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/object"
)

// answer is a RoundTripper that answers every request with a status, a
// Content-Type and a body: body, or else size NUL bytes; read counts what
// was read of it.
type answer struct {
	code  int
	ctype string
	body  []byte
	size  int64
	read  *int64
}

func (a answer) RoundTrip(req *http.Request) (*http.Response, error) {
	var body io.Reader = bytes.NewReader(a.body)
	if a.body == nil {
		body = io.LimitReader(zeros{}, a.size)
	}
	return &http.Response{StatusCode: a.code, Header: http.Header{"Content-Type": {a.ctype}}, Request: req,
		Body: io.NopCloser(&counted{r: body, n: a.read})}, nil
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

type counted struct {
	r io.Reader
	n *int64
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.n != nil {
		*c.n += int64(n)
	}
	return n, err
}

// httpRemote is a Remote for http://h/r whose requests a answers.
func httpRemote(a answer) *Remote {
	ep, _ := parseEndpoint("http://h/r")
	r := &Remote{URL: "http://h/r", ctx: context.Background(), ep: ep, o: Options{Stderr: io.Discard}}
	r.d = &httpDialer{r: r, client: &http.Client{Transport: a}, auth: &httpAuth{origin: originOf(ep)}, cut: &transferLog{}}
	return r
}

// refList is a RefSink that lists what it is given, and keeps the object
// format it was told of.
type refList struct {
	got    []string
	format object.Format
}

func (l *refList) Format(f object.Format) { l.format = f }

func (l *refList) Symref(name, target string) { l.got = append(l.got, "@"+target+" "+name) }

func (l *refList) Ref(name []byte, id object.ID) error {
	l.got = append(l.got, id.String()+" "+string(name))
	return nil
}

// TestSmartAdvertisement: the refs of a smart-HTTP advertisement, after
// its service line and the flush that ends that header, go to the sink as
// they are read, with the capabilities and shallow lines kept; an empty
// repository's, an ERR line, and an answer without the service line are
// what git's remote-curl makes of them.
func TestSmartAdvertisement(t *testing.T) {
	refs := []string{
		oid1 + " HEAD\x00multi_ack side-band-64k symref=HEAD:refs/heads/main\n",
		oid1 + " refs/heads/main\n",
		oid1 + " refs/tags/v1\n",
		"shallow " + oid1 + "\n",
	}
	service := gittest.Advertisement("# service=git-upload-pack\n")
	const ctype = "application/x-git-upload-pack-advertisement"
	read := func(body []byte) (*refList, *advert, error) {
		h := &smartHTTP{d: httpRemote(answer{code: 200, ctype: ctype, body: body}).d.(*httpDialer), service: "git-upload-pack"}
		in, err := h.advertisement()
		if err != nil {
			return nil, nil, err
		}
		l := &refList{}
		a, err := readAdvertisement(in, l)
		return l, a, err
	}
	l, a, err := read(append(append([]byte{}, service...), gittest.Advertisement(refs...)...))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"@refs/heads/main HEAD", oid1 + " HEAD", oid1 + " refs/heads/main", oid1 + " refs/tags/v1"}
	if strings.Join(l.got, "|") != strings.Join(want, "|") {
		t.Errorf("sink got %q", l.got)
	}
	if !a.caps.Supports("side-band-64k") || len(a.shallows) != 1 || a.empty() {
		t.Errorf("advertisement %+v", a)
	}
	if _, _, err := read(append(append([]byte{}, service...), "0000"...)); !errors.Is(err, errEmptyAdvertisement) {
		t.Errorf("empty: %v", err)
	}
	var el *pktline.ErrorLine
	if _, _, err := read(append(append([]byte{}, service...), gittest.Advertisement("ERR gone\n")...)); !errors.As(err, &el) || el.Text != "gone" {
		t.Errorf("ERR: %v", err)
	}
	if _, _, err := read(gittest.Advertisement(refs...)); err == nil || !strings.HasPrefix(err.Error(), "invalid server response; got '"+oid1+" HEAD") {
		t.Errorf("no service line: %v", err)
	}
}

// TestMediaType: a smart advertisement is recognized by its media type
// alone, as git does: parameters, case and white space aside.
func TestMediaType(t *testing.T) {
	const want = "application/x-git-upload-pack-advertisement"
	for _, ct := range []string{want, want + "; charset=utf-8", "Application/X-Git-Upload-Pack-Advertisement ;q=1", " " + want + "\t"} {
		if got := mediaType(ct); got != want {
			t.Errorf("%q: %q", ct, got)
		}
	}
	for _, ct := range []string{"", "text/plain", want + "x", "application/x-git-receive-pack-advertisement"} {
		if mediaType(ct) == want {
			t.Errorf("%q taken for a smart advertisement", ct)
		}
	}
}

// TestBoundsErrorBody: of an error answer, maxErrorBody bytes of its body
// at most are read, whatever it holds; a success's body is left whole.
func TestBoundsErrorBody(t *testing.T) {
	const size = 8 << 20
	for _, tc := range []struct {
		code int
		want int64
	}{{500, maxErrorBody}, {401, maxErrorBody}, {404, maxErrorBody}, {200, size}} {
		var n int64
		h := &smartHTTP{d: httpRemote(answer{code: tc.code, size: size, read: &n}).d.(*httpDialer), service: "git-upload-pack"}
		in, err := h.send(strings.NewReader("0000"), false)
		if err == nil {
			_, err = io.Copy(io.Discard, in)
		}
		h.close()
		if tc.code != 200 && err == nil || tc.code == 200 && err != nil || n != tc.want {
			t.Errorf("%d: read %d bytes (%v), want %d", tc.code, n, err, tc.want)
		}
	}
}
