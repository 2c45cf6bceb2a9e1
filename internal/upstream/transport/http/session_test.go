package http

import (
	"bufio"
	"bytes"
	"context"
	"io"
	nethttp "net/http"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/git-durable/git-durable/internal/upstream/transport"
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

func (a answer) RoundTrip(req *nethttp.Request) (*nethttp.Response, error) {
	var body io.Reader = bytes.NewReader(a.body)
	if a.body == nil {
		body = io.LimitReader(zeros{}, a.size)
	}
	return &nethttp.Response{StatusCode: a.code, Header: nethttp.Header{"Content-Type": {a.ctype}}, Request: req,
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

// testSession is a session with http://h/r whose requests a answers.
func testSession(a answer) *session {
	ep, _ := transport.ParseAddress("http://h/r")
	d := &dialer{addr: ep, safe: ep.Safe, o: Options{Stderr: io.Discard}, client: &nethttp.Client{Transport: a},
		auth: &auth{origin: ep.Origin()}}
	d.once.Do(func() {})
	return &session{d: d, ctx: context.Background(), service: "git-upload-pack"}
}

// TestSmartAdvertisement: of a smart-HTTP advertisement, what follows its
// service line and the flush that ends that header reaches the protocol
// as it came (the v0 refs, an empty repository's flush, an ERR line), and
// so does a v2 capability advertisement, which has no header; an answer
// without the service line is what git's remote-curl makes of it.
func TestSmartAdvertisement(t *testing.T) {
	refs := gittest.Advertisement(oid1+" HEAD\x00multi_ack side-band-64k symref=HEAD:refs/heads/main\n", oid1+" refs/heads/main\n")
	service := gittest.Advertisement("# service=git-upload-pack\n")
	const ctype = "application/x-git-upload-pack-advertisement"
	read := func(body []byte) ([]byte, error) {
		var got []byte
		err := testSession(answer{code: 200, ctype: ctype, body: body}).Handshake(context.Background(), "git-upload-pack", 0,
			func(in *bufio.Reader) (int, error) {
				b, err := io.ReadAll(in)
				got = b
				return 0, err
			})
		return got, err
	}
	for _, rest := range [][]byte{refs, []byte("0000"), gittest.Advertisement("ERR gone\n")} {
		got, err := read(append(append([]byte{}, service...), rest...))
		if err != nil || !bytes.Equal(got, rest) {
			t.Errorf("after the header: %q (%v), want %q", got, err, rest)
		}
	}
	v2 := gittest.Advertisement("version 2\n", "ls-refs\n")
	if got, err := read(v2); err != nil || !bytes.Equal(got, v2) {
		t.Errorf("v2: %q (%v)", got, err)
	}
	if _, err := read(refs); err == nil || !strings.HasPrefix(err.Error(), "invalid server response; got '"+oid1+" HEAD") {
		t.Errorf("no service line: %v", err)
	}
	if _, err := read([]byte("0000")); err == nil || err.Error() != "invalid server response; expected service, got flush packet" {
		t.Errorf("a flush first: %v", err)
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
		h := testSession(answer{code: tc.code, size: size, read: &n})
		in, err := h.Request(strings.NewReader("0000"), false)
		if err == nil {
			_, err = io.Copy(io.Discard, in)
		}
		h.Close()
		if tc.code != 200 && err == nil || tc.code == 200 && err != nil || n != tc.want {
			t.Errorf("%d: read %d bytes (%v), want %d", tc.code, n, err, tc.want)
		}
	}
}

// oid1 is an object id for the tests' refs.
const oid1 = "1111111111111111111111111111111111111111"
