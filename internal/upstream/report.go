package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// RefStatus is what the upstream reported for one ref of a push: "ok", or
// "ng" and its reason.
type RefStatus struct {
	OK     bool
	Reason string
}

// maxWarnings bounds the warnings printed for status lines about refs the
// push did not send; the others are counted.
const maxWarnings = 10

// Report reads a receive-pack report-status the way git's send-pack does
// (send-pack.c receive_status), in memory bounded by the push: only the
// statuses of the refs it sent are kept, a line about any other ref is a
// warning in git's words and is counted — go-git's ReportStatus keeps every
// line (a million lines: 120 MiB) and cannot tell "ng <ref> ok" from
// "ok <ref>".
type Report struct {
	sent  map[string]bool   // the refs the push sent
	known func(string) bool // other refs git knows: advertised, or in the push
	warn  io.Writer

	Read     bool   // a report was read
	Err      error  // why it was refused
	Unpack   string // "ok", or why the upstream's unpack failed
	Statuses map[string]RefStatus
	unknown  int // lines about refs not sent
}

// newReport prepares the reading of the report on the refs sent.
func newReport(sent []string, known func(string) bool, warn io.Writer) *Report {
	r := &Report{sent: make(map[string]bool, len(sent)), known: known, warn: warn, Statuses: map[string]RefStatus{}}
	for _, name := range sent {
		r.sent[name] = true
	}
	return r
}

// decode reads the report from in, up to the flush that ends it. A report
// git would refuse is an error in git's words, and so is one that ends
// early ("the remote end hung up unexpectedly", as git dies); it is also
// kept in r.err.
func (r *Report) decode(in io.Reader) error {
	r.Read = true
	r.Err = r.decodeFrom(in)
	return r.Err
}

// status takes one line of the report after "unpack": "ok <ref>", "ng
// <ref> <reason>", or an "option" line of report-status-v2, which may
// follow only an ok (options says whether the last status was one).
func (r *Report) status(line []byte, options *bool) error {
	head, rest, found := bytes.Cut(line, []byte(" "))
	switch {
	case !found:
		return fmt.Errorf("invalid status line from remote: %s", mask.Printable(string(line)))
	case string(head) == "option":
		if !*options {
			return errors.New("'option' without a matching 'ok/ng' directive")
		}
		return nil // report-status-v2's details, which the helper does not ask for
	case string(head) != "ok" && string(head) != "ng":
		return fmt.Errorf("invalid ref status from remote: %s", mask.Printable(string(head)))
	}
	name, reason, hasReason := bytes.Cut(rest, []byte(" "))
	*options = false
	if !r.sent[string(name)] {
		r.other(string(name))
		return nil
	}
	st := RefStatus{OK: string(head) == "ok"}
	*options = st.OK
	if !st.OK {
		st.Reason = "failed" // git's word when the upstream gives none
		if hasReason {
			st.Reason = string(reason)
		}
	}
	r.Statuses[string(name)] = st
	return nil
}

// decodeFrom is decode, without keeping the error.
func (r *Report) decodeFrom(in io.Reader) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	next := func() ([]byte, error) {
		pkt, err := transport.ReadPkt(br, &buf)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errHungUp
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
		return fmt.Errorf("unable to parse remote unpack status: %s", mask.Printable(string(line)))
	}
	r.Unpack = string(line[len("unpack "):])
	options := false // an "option" line may follow: the last status was ok
	for {
		line, err := next()
		if err != nil {
			return err
		}
		if line == nil {
			break
		}
		if err := r.status(line, &options); err != nil {
			return err
		}
	}
	if n := r.unknown - maxWarnings; n > 0 {
		fmt.Fprintf(r.warn, "warning: remote reported status on %d more refs that were not pushed\n", n)
	}
	return nil
}

// other warns about a status line on a ref the push did not send, as git
// does, up to maxWarnings of them.
func (r *Report) other(name string) {
	r.unknown++
	if r.unknown > maxWarnings {
		return
	}
	what := "unknown"
	if r.known != nil && r.known(name) {
		what = "unexpected"
	}
	fmt.Fprintf(r.warn, "warning: remote reported status on %s ref: %s\n", what, mask.Printable(name))
}
