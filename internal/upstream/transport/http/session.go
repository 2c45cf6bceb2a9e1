package http

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	nethttp "net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// session is one service's session over git's smart HTTP protocol, as
// git's remote-curl speaks it: the advertisement is the body of GET
// …/info/refs?service=<service>, each request the body of a POST to
// …/<service>, answered in the response's body. It is stateless: each
// round of a fetch's negotiation is a request of its own, with the wants
// and the haves acknowledged so far again. Every request goes
// through the dialer's client (its settings, the redirect policy, the
// low-speed watch) with the credentials and extra headers of the origin
// it goes to.
type session struct {
	d       *dialer
	ctx     context.Context
	service string
	version int           // protocol.version asked for with Git-Protocol
	body    io.ReadCloser // of the answer being read
}

// Handshake reads the advertisement, as many times as the dialer asks: a
// server wanting credentials the helper had not got.
func (h *session) Handshake(ctx context.Context, service string, version int, read transport.Advertised) error {
	if h.d.err != nil {
		return h.d.err
	}
	h.ctx, h.service, h.version = ctx, service, version
	for {
		h.d.asked = h.d.addr.CredentialURL()
		in, err := h.advertisement()
		if err == nil {
			_, err = read(in)
		}
		if err != nil {
			h.closeBody()
		}
		again, err := h.d.answered(ctx, h, err)
		if !again {
			return err
		}
	}
}

// maxErrorBody bounds what is read of an error answer's body: git shows
// none of it here, and a gzip bomb of a 500 inflates to hundreds of MiB.
const maxErrorBody = 64 << 10

// advertisement asks for the refs. A redirect of this first request moves
// the remote (every later request goes where the refs were found, as
// git's do); the answer must be a smart one, by its media type, and start
// as remote-curl's check_smart_http wants it: "# service=<service>" and
// its header lines up to a flush (then the v0 refs), or "version 2".
func (h *session) advertisement() (*bufio.Reader, error) {
	u := serviceURL(h.d.addr, "info/refs")
	if u.RawQuery != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += "service=" + h.service
	resp, err := h.do(nethttp.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if err := h.d.moveTo(resp.Request.URL, u); err != nil {
		resp.Body.Close()
		return nil, err
	}
	want := "application/x-" + h.service + "-advertisement"
	if mediaType(resp.Header.Get("Content-Type")) != want {
		resp.Body.Close()
		return nil, fmt.Errorf("'%s' is not a smart git server: dumb HTTP, which the helper does not speak", h.d.safe)
	}
	h.body = resp.Body
	in := bufio.NewReaderSize(resp.Body, 64<<10)
	if v2, _ := transport.IsV2(in); v2 {
		return in, nil // the capability advertisement's own first line
	}
	var buf []byte
	p, err := transport.ReadPkt(in, &buf)
	switch {
	case err != nil:
		return nil, err
	case p == nil:
		return nil, errors.New("invalid server response; expected service, got flush packet")
	case string(bytes.TrimSuffix(p, []byte("\n"))) != "# service="+h.service:
		return nil, fmt.Errorf("invalid server response; got '%s'", bytes.TrimSuffix(p, []byte("\n")))
	}
	for {
		p, err := transport.ReadPkt(in, &buf)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return in, nil
		}
	}
}

// Request POSTs the request. The body is sent from memory with its length,
// so that a 307 or 308 can send it again.
func (h *session) Request(req io.Reader, last bool) (*bufio.Reader, error) {
	body, err := io.ReadAll(req)
	if err != nil {
		return nil, err
	}
	h.closeBody()
	resp, err := h.do(nethttp.MethodPost, serviceURL(h.d.addr, h.service), body)
	if err != nil {
		return nil, err
	}
	h.body = resp.Body
	return bufio.NewReaderSize(resp.Body, 64<<10), nil
}

// do sends one request with git's headers, and turns an answer that is not
// a success into an error, having read at most maxErrorBody of it.
func (h *session) do(method string, u *url.URL, body []byte) (*nethttp.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := nethttp.NewRequestWithContext(h.ctx, method, u.String(), rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", transport.Agent)
	if body == nil {
		req.Header.Set("Accept", "*/*")
		req.Header.Set("Pragma", "no-cache")
	} else {
		req.Header.Set("Content-Type", "application/x-"+h.service+"-request")
		req.Header.Set("Accept", "application/x-"+h.service+"-result")
	}
	if h.version > 0 {
		req.Header.Set("Git-Protocol", "version="+strconv.Itoa(h.version))
	}
	h.d.auth.SetAuth(req)
	resp, err := h.d.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
		return resp, nil
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	switch resp.StatusCode {
	case nethttp.StatusUnauthorized:
		return nil, transport.ErrAuthRequired
	case nethttp.StatusForbidden:
		return nil, transport.ErrForbidden
	case nethttp.StatusNotFound:
		return nil, transport.ErrNotFound
	}
	return nil, &statusError{code: resp.StatusCode, method: method}
}

// Explain returns err: an HTTP answer says what went wrong itself.
func (h *session) Explain(err error) error { return err }

// URL is where the last redirect moved the upstream.
func (h *session) URL() *transport.Address { return h.d.addr }

// Persistent is false: every request has a connection of its own.
func (h *session) Persistent() bool { return false }

// Close closes the body of the answer being read.
func (h *session) Close() error {
	h.closeBody()
	return nil
}

func (h *session) closeBody() {
	if h.body != nil {
		h.body.Close()
		h.body = nil
	}
}

// mediaType is a Content-Type as git compares it (http.c
// extract_content_type, for remote-curl.c): up to the first ';', white
// space left out, lower-cased. Parameters ("; charset=utf-8") do not count.
func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.Join(strings.Fields(t), ""))
}

// serviceURL is the URL of a file of the upstream's smart HTTP service,
// as remote-curl makes it: the upstream's URL (its query kept) with a '/'
// unless it has one, then name.
func serviceURL(a *transport.Address, name string) *url.URL {
	path, query, _ := strings.Cut(a.Path, "?")
	query, _, _ = strings.Cut(query, "#")
	path, _, _ = strings.Cut(path, "#")
	if !strings.HasSuffix(path, "/") {
		path += "/"
	}
	u := a.Origin()
	u.Path, u.RawQuery = path+name, query
	return u
}

// moveTo moves the upstream to where a redirect of the request for asked
// found the refs: got must end as asked does ("/info/refs"), as git's
// http.c update_url_from_redirect wants it; the new base is what comes
// before.
func (d *dialer) moveTo(got, asked *url.URL) error {
	if got.String() == asked.String() {
		return nil
	}
	const tail = "/info/refs"
	if !strings.HasSuffix(got.Path, tail) {
		return fmt.Errorf("unable to update url base from redirection: asked for: %s, redirect: %s", transport.Anonymize(asked.String()), transport.Anonymize(got.String()))
	}
	ep := &transport.Address{Scheme: transport.Scheme(strings.ToLower(got.Scheme)), Host: got.Hostname(), Path: strings.TrimSuffix(got.Path, tail)}
	if strings.Contains(ep.Host, ":") {
		ep.Host = "[" + ep.Host + "]"
	}
	if p := got.Port(); p != "" {
		ep.Port, _ = strconv.Atoi(p)
	}
	d.addr = ep
	return nil
}
