package upstream

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/protocol/capability"
	"github.com/go-git/go-git/v6/plumbing/protocol/packp"

	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// v2 is what a protocol v2 server advertised (gitprotocol-v2): its
// capabilities, one a line, and the object format they name.
type v2 struct {
	caps   capability.List
	format object.Format
}

// readV2 reads a capability advertisement: "version 2", then key[=value]
// lines up to a flush. A server must offer ls-refs and fetch; its
// object-format, when it names one, must be one git knows.
func readV2(in *bufio.Reader) (*v2, error) {
	var buf []byte
	if _, err := transport.ReadPkt(in, &buf); err != nil { // "version 2"
		return nil, err
	}
	a := &v2{format: object.SHA1}
	for {
		p, err := transport.ReadPkt(in, &buf)
		if err == io.EOF {
			return nil, fmt.Errorf("the capability advertisement ended early: %w", io.ErrUnexpectedEOF)
		}
		if err != nil {
			return nil, err
		}
		if p == nil {
			break
		}
		key, value, _ := strings.Cut(string(bytes.TrimSuffix(p, []byte("\n"))), "=")
		a.caps.Add(key, strings.Fields(value)...)
	}
	for _, c := range []string{"ls-refs", "fetch"} {
		if !a.caps.Supports(c) {
			return nil, fmt.Errorf("server doesn't support '%s'", c)
		}
	}
	f, err := serverFormat(&a.caps)
	if err != nil {
		return nil, err
	}
	a.format = f
	return a, nil
}

// feature reports whether the server's capability cmd (ls-refs, fetch)
// offers the feature, as in "fetch=shallow filter".
func (a *v2) feature(cmd, feature string) bool {
	for _, v := range a.caps.Get(cmd) {
		if v == feature {
			return true
		}
	}
	return false
}

// command encodes a v2 request: the command, the capabilities git sends
// with each (its agent and object format, when the server named them), a
// delim, the arguments and a flush.
func (a *v2) command(name string, args packp.CommandArgs) (*bytes.Buffer, error) {
	req := &packp.CommandRequest{Command: name, Args: args}
	if a.caps.Supports(capability.Agent) {
		req.Capabilities.Set(capability.Agent, transport.Agent)
	}
	if a.caps.Supports(capability.ObjectFormat) {
		req.Capabilities.Set(capability.ObjectFormat, a.format.String())
	}
	var b bytes.Buffer
	return &b, req.Encode(&b)
}

// A v2 capability advertisement is a dialect: ls-refs lists the refs, and
// a session serves a fetch after another.

func (a *v2) idFormat() object.Format { return a.format }

func (a *v2) checkFormat(local object.Format) error {
	switch {
	case !a.caps.Supports(capability.ObjectFormat) && local != object.SHA1:
		return fmt.Errorf("the server does not support algorithm '%s'", local)
	case a.format != local:
		return fmt.Errorf("mismatched algorithms: client %s; server %s", local, a.format)
	}
	return nil
}

// byID: v2's upload-pack takes any want.
func (a *v2) byID() bool { return true }

func (a *v2) single() bool { return false }

func (a *v2) listRefs(t transport.Transport, sink RefSink) error {
	sink.Format(a.format)
	return a.lsRefs(t, sink)
}
