package upstream

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
)

// TestTapAdvertisement: the refs of a smart-HTTP advertisement go to the
// sink, and go-git is given the first ref with the capabilities, which it
// decodes to the same capabilities and HEAD.
func TestTapAdvertisement(t *testing.T) {
	refs := []string{
		oid1 + " HEAD\x00multi_ack side-band-64k symref=HEAD:refs/heads/main\n",
		oid1 + " refs/heads/main\n",
		oid1 + " refs/tags/v1\n",
		"shallow " + oid1 + "\n",
	}
	service := advertisement(t, "# service=git-upload-pack\n")
	for name, body := range map[string][]byte{
		"with service line": append(append([]byte{}, service...), advertisement(t, refs...)...),
		"refs only":         advertisement(t, refs...),
	} {
		var got []string
		short, err := tapAdvertisement(bufio.NewReader(bytes.NewReader(body)), func(_ *packp.AdvRefs, n []byte, id plumbing.Hash) error {
			got = append(got, id.String()+" "+string(n))
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := []string{oid1 + " HEAD", oid1 + " refs/heads/main", oid1 + " refs/tags/v1"}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: sink got %q", name, got)
		}
		ar := packp.NewAdvRefs()
		if err := ar.Decode(bytes.NewReader(short)); err != nil {
			t.Fatalf("%s: go-git cannot decode %q: %v", name, short, err)
		}
		if ar.Head == nil || ar.Head.String() != oid1 || !ar.Capabilities.Supports("side-band-64k") ||
			len(ar.Capabilities.Get("symref")) != 1 || len(ar.Shallows) != 1 || len(ar.References) > 1 {
			t.Errorf("%s: go-git got %+v from %q", name, ar, short)
		}
	}
	empty := append(append([]byte{}, service...), "0000"...)
	short, err := tapAdvertisement(bufio.NewReader(bytes.NewReader(empty)), func(*packp.AdvRefs, []byte, plumbing.Hash) error {
		t.Error("a ref from an empty advertisement")
		return nil
	})
	if err != nil || string(short) != string(empty) {
		t.Errorf("empty: %q, %v", short, err)
	}
	if _, err := tapAdvertisement(bufio.NewReader(bytes.NewReader(advertisement(t, "ERR gone\n"))), nil); err == nil || err.Error() != "gone" {
		t.Errorf("ERR: %v", err)
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

// answer is a RoundTripper that answers every request with a status and
// a body of size NUL bytes.
type answer struct {
	code int
	size int64
}

func (a answer) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: a.code, Header: http.Header{}, Request: req,
		Body: io.NopCloser(io.LimitReader(zeros{}, a.size))}, nil
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestTapBoundsErrorBody: an error answer yields maxErrorBody bytes of its
// body at most, whatever it holds; a success's body is left whole.
func TestTapBoundsErrorBody(t *testing.T) {
	const size = 8 << 20
	for _, tc := range []struct {
		code int
		want int64
	}{{500, maxErrorBody}, {401, maxErrorBody}, {404, maxErrorBody}, {200, size}} {
		tap := &advertTap{next: answer{tc.code, size}}
		req, _ := http.NewRequest(http.MethodPost, "http://h/r/git-upload-pack", nil)
		resp, err := tap.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || n != tc.want {
			t.Errorf("%d: read %d bytes (%v), want %d", tc.code, n, err, tc.want)
		}
	}
}
