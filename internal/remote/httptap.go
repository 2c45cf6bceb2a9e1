package remote

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
)

// advertTap streams the ref advertisement of an upload-pack fetched over
// HTTP to a sink, as the helper's own transports do: go-git's HTTP session
// decodes every ref into a map (a million refs: 176 MB). While list has
// set a sink, the tap reads the response to GET …/info/refs itself, hands
// each ref to the sink as it arrives, and gives go-git an advertisement of
// the first ref alone with the capabilities and shallow lines — all that
// the fetch that follows needs from it.
//
// It also hands the response to a push (POST …/git-receive-pack) to report
// while sendPack has set it, and gives go-git an empty response, which it
// takes for no report at all: go-git keeps every line of a report.
type advertTap struct {
	next   http.RoundTripper
	sink   refSink               // for the next advertisement only
	used   bool                  // the sink took an advertisement
	report func(io.Reader) error // reads a push's report (side-band and all)
}

// maxErrorBody bounds what is read of an error response's body: go-git
// reads it whole into its error, which shows none of it, and a gzip bomb
// of a 500 inflates to hundreds of MiB.
const maxErrorBody = 64 << 10

// RoundTrip passes every request on, bounds the body of an answer that is
// not a success, and taps the one list waits for and a push's report.
func (t *advertTap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, maxErrorBody), resp.Body}
	}
	if err == nil && t.report != nil && req.Method == http.MethodPost && resp.StatusCode == http.StatusOK &&
		strings.HasSuffix(req.URL.Path, "/git-receive-pack") {
		return t.tapReport(resp)
	}
	if err != nil || t.sink == nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK ||
		!strings.HasSuffix(req.URL.Path, "/info/refs") || req.URL.Query().Get("service") != "git-upload-pack" ||
		mediaType(resp.Header.Get("Content-Type")) != "application/x-git-upload-pack-advertisement" {
		return resp, err
	}
	sink := t.sink
	t.sink = nil
	body, err := tapAdvertisement(bufio.NewReaderSize(resp.Body, 64<<10), sink)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	t.used = true
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// mediaType is a Content-Type as git compares it (http.c
// extract_content_type, for remote-curl.c): up to the first ';', white
// space left out, lower-cased. Parameters ("; charset=utf-8") do not count.
func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.Join(strings.Fields(t), ""))
}

// tapAdvertisement reads a smart-HTTP advertisement ("# service=…", a
// flush, then v0 refs) from r, sends the refs to sink and returns the short
// advertisement go-git is given instead.
func tapAdvertisement(r *bufio.Reader, sink refSink) ([]byte, error) {
	var out bytes.Buffer
	enc := pktline.NewEncoder(&out)
	if p, err := r.Peek(4); err == nil && string(p) != "0000" {
		var buf []byte
		pkt, err := readPkt(r, &buf)
		if err != nil {
			return nil, err
		}
		if bytes.HasPrefix(pkt, []byte("# service=")) {
			enc.Encode(pkt)
			if p, err := r.Peek(4); err == nil && string(p) == "0000" {
				r.Discard(4)
			}
			enc.Flush()
		} else {
			// No service line: the refs start here.
			r = bufio.NewReader(io.MultiReader(pktReader(pkt), r))
		}
	}
	var (
		firstName []byte
		firstID   plumbing.Hash
	)
	ar, err := readAdvertisement(r, func(ar *packp.AdvRefs, name []byte, id plumbing.Hash) error {
		if firstName == nil {
			firstName, firstID = append([]byte{}, name...), id
		}
		return sink(ar, name, id)
	})
	switch {
	case errors.Is(err, errEmptyAdvertisement):
		enc.Flush()
		return out.Bytes(), nil
	case err != nil:
		return nil, err
	}
	caps := ar.Capabilities.String()
	if firstName == nil { // an empty repository that still sent capabilities
		firstName = []byte("capabilities^{}")
	}
	if err := enc.EncodeString(fmt.Sprintf("%s %s\x00%s\n", firstID, firstName, caps)); err != nil {
		return nil, err
	}
	for _, s := range ar.Shallows {
		enc.EncodeString("shallow " + s.String() + "\n")
	}
	enc.Flush()
	return out.Bytes(), nil
}

// pktReader gives back one pkt-line already read.
func pktReader(payload []byte) io.Reader {
	var b bytes.Buffer
	pktline.NewEncoder(&b).Encode(payload)
	return &b
}

// tapReport hands the response to a push to report and gives go-git an
// empty one in its place; a report that could not be read is report's to
// tell (sendPack asks it).
func (t *advertTap) tapReport(resp *http.Response) (*http.Response, error) {
	t.report(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(nil))
	resp.ContentLength = 0
	resp.Header.Del("Content-Length")
	return resp, nil
}
