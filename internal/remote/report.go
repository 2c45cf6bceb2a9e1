package remote

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
)

// refStatus is what the upstream reported for one ref of a push: "ok", or
// "ng" and its reason.
type refStatus struct {
	ok     bool
	reason string
}

// maxWarnings bounds the warnings printed for status lines about refs the
// push did not send; the others are counted.
const maxWarnings = 10

// report reads a receive-pack report-status the way git's send-pack does
// (send-pack.c receive_status), in memory bounded by the push: only the
// statuses of the refs it sent are kept, a line about any other ref is a
// warning in git's words and is counted — go-git's ReportStatus keeps every
// line (a million lines: 120 MiB) and cannot tell "ng <ref> ok" from
// "ok <ref>".
type report struct {
	sent  map[string]bool   // the refs the push sent
	known func(string) bool // other refs git knows: advertised, or in the push
	warn  io.Writer

	read     bool   // a report was read
	err      error  // why it was refused
	unpack   string // "ok", or why the upstream's unpack failed
	statuses map[string]refStatus
	unknown  int // lines about refs not sent
}

// newReport prepares the reading of the report on the refs sent.
func newReport(sent []string, known func(string) bool, warn io.Writer) *report {
	r := &report{sent: make(map[string]bool, len(sent)), known: known, warn: warn, statuses: map[string]refStatus{}}
	for _, name := range sent {
		r.sent[name] = true
	}
	return r
}

// decode reads the report from in, up to the flush that ends it. A report
// git would refuse is an error in git's words, and so is one that ends
// early ("the remote end hung up unexpectedly", as git dies); it is also
// kept in r.err.
func (r *report) decode(in io.Reader) error {
	r.read = true
	r.err = r.decodeFrom(in)
	return r.err
}

func (r *report) decodeFrom(in io.Reader) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	next := func() ([]byte, error) {
		pkt, err := readPkt(br, &buf)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("the remote end hung up unexpectedly")
		}
		if err != nil {
			return nil, err // an ERR line, the side-band's error channel, a bad length
		}
		return bytes.TrimSuffix(pkt, []byte("\n")), nil
	}
	line, err := next()
	switch {
	case err != nil:
		return err
	case line == nil:
		return errors.New("unexpected flush packet while reading remote unpack status")
	case !bytes.HasPrefix(line, []byte("unpack ")):
		return fmt.Errorf("unable to parse remote unpack status: %s", printable(string(line)))
	}
	r.unpack = string(line[len("unpack "):])
	options := false // an "option" line may follow: the last status was ok
	for {
		line, err := next()
		if err != nil {
			return err
		}
		if line == nil {
			break
		}
		head, rest, found := bytes.Cut(line, []byte(" "))
		switch {
		case !found:
			return fmt.Errorf("invalid status line from remote: %s", printable(string(line)))
		case string(head) == "option":
			if !options {
				return errors.New("'option' without a matching 'ok/ng' directive")
			}
			continue // report-status-v2's details, which the helper does not ask for
		case string(head) != "ok" && string(head) != "ng":
			return fmt.Errorf("invalid ref status from remote: %s", printable(string(head)))
		}
		name, reason, hasReason := bytes.Cut(rest, []byte(" "))
		options = false
		if !r.sent[string(name)] {
			r.other(string(name))
			continue
		}
		st := refStatus{ok: string(head) == "ok"}
		options = st.ok
		if !st.ok {
			st.reason = "failed" // git's word when the upstream gives none
			if hasReason {
				st.reason = string(reason)
			}
		}
		r.statuses[string(name)] = st
	}
	if n := r.unknown - maxWarnings; n > 0 {
		fmt.Fprintf(r.warn, "warning: remote reported status on %d more refs that were not pushed\n", n)
	}
	return nil
}

// other warns about a status line on a ref the push did not send, as git
// does, up to maxWarnings of them.
func (r *report) other(name string) {
	r.unknown++
	if r.unknown > maxWarnings {
		return
	}
	what := "unknown"
	if r.known != nil && r.known(name) {
		what = "unexpected"
	}
	fmt.Fprintf(r.warn, "warning: remote reported status on %s ref: %s\n", what, printable(name))
}

// adopt takes the report go-git decoded, for a session that does not let
// the helper read it (go-git's own server, which tests use): there, "ng
// <ref> ok" looks like "ok <ref>".
func (r *report) adopt(rs *packp.ReportStatus) {
	r.read = true
	r.unpack = rs.UnpackStatus
	for _, cs := range rs.CommandStatuses {
		name := cs.ReferenceName.String()
		if !r.sent[name] {
			r.other(name)
			continue
		}
		r.statuses[name] = refStatus{ok: cs.Status == "ok", reason: cs.Status}
	}
}

// statusWords are the reasons that git's transport-helper.c
// (push_update_ref_status) takes, once unquoted, for a status of its own
// rather than for the upstream's words: "error <ref> up to date" is a
// success there.
var statusWords = map[string]bool{
	"no match": true, "up to date": true, "non-fast forward": true, "already exists": true,
	"fetch first": true, "needs force": true, "stale info": true,
	"remote ref updated since checkout": true, "forced update": true, "expecting report": true,
}

// rejection is the reason the helper gives git for a ref the upstream
// refused: the upstream's words, which git prints as
// "! [remote rejected] <ref> (<reason>)" like its own send-pack — in
// double quotes when they are one of git's status words, so that git never
// reads a refusal as a status.
func rejection(reason string) string {
	if statusWords[strings.TrimSpace(reason)] {
		return `"` + reason + `"`
	}
	return reason
}
