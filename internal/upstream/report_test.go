package upstream

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"
	"github.com/go-git/go-git/v6/plumbing/protocol/capability"

	"github.com/git-durable/git-durable/internal/upstream/transport"
)

// pkts encodes lines as pkt-lines; "" is a flush.
func pkts(lines ...string) string {
	var b bytes.Buffer
	for _, l := range lines {
		if l == "" {
			pktline.WriteFlush(&b)
		} else {
			pktline.WriteString(&b, l+"\n")
		}
	}
	return b.String()
}

// TestReportDecode reads reports as git's send-pack does: the statuses of
// the refs sent, "failed" for an ng without reason, other refs warned
// about and counted, and git's words for what it refuses.
func TestReportDecode(t *testing.T) {
	sent := []string{"refs/heads/main", "refs/heads/topic"}
	for _, tc := range []struct {
		name, in string
		want     string // statuses, or the error
		warn     string
	}{
		{"ok and ng", pkts("unpack ok", "ok refs/heads/main", "ng refs/heads/topic up to date", ""),
			"unpack ok; refs/heads/main ok; refs/heads/topic ng up to date", ""},
		{"ng ok is a refusal", pkts("unpack ok", "ng refs/heads/main ok", ""), "unpack ok; refs/heads/main ng ok", ""},
		{"ng without reason", pkts("unpack ok", "ng refs/heads/main", ""), "unpack ok; refs/heads/main ng failed", ""},
		{"the last line wins", pkts("unpack ok", "ok refs/heads/main", "ng refs/heads/main second thoughts", ""),
			"unpack ok; refs/heads/main ng second thoughts", ""},
		{"options after ok", pkts("unpack ok", "ok refs/heads/main", "option refname refs/heads/main", "option forced-update", ""),
			"unpack ok; refs/heads/main ok", ""},
		{"unpack failed", pkts("unpack index-pack abnormal exit", "ng refs/heads/main unpacker error", ""),
			"unpack index-pack abnormal exit; refs/heads/main ng unpacker error", ""},
		{"other refs", pkts("unpack ok", "ok refs/heads/x", "ng refs/heads/side y", "ok refs/heads/main", ""), "unpack ok; refs/heads/main ok",
			"warning: remote reported status on unknown ref: refs/heads/x\nwarning: remote reported status on unexpected ref: refs/heads/side\n"},
		{"no report", pkts(""), "unexpected flush packet while reading remote unpack status", ""},
		{"no unpack line", pkts("ok refs/heads/main", ""), "unable to parse remote unpack status: ok refs/heads/main", ""},
		{"no space", pkts("unpack ok", "ok", ""), "invalid status line from remote: ok", ""},
		{"unknown status", pkts("unpack ok", "fine refs/heads/main", ""), "invalid ref status from remote: fine", ""},
		{"option first", pkts("unpack ok", "option refname x", ""), "'option' without a matching 'ok/ng' directive", ""},
		{"option after ng", pkts("unpack ok", "ng refs/heads/main no", "option refname x", ""), "'option' without a matching 'ok/ng' directive", ""},
		{"option after another ref's ok", pkts("unpack ok", "ok refs/heads/x", "option refname x", ""), "'option' without a matching 'ok/ng' directive",
			"warning: remote reported status on unknown ref: refs/heads/x\n"},
		{"hung up", pkts("unpack ok", "ok refs/heads/main"), "the remote end hung up unexpectedly", ""},
		{"cut in a line", pkts("unpack ok")[:8], "the remote end hung up unexpectedly", ""},
		{"an ERR line", pkts("unpack ok", "ERR no more"), "remote error: no more", ""},
		{"a bad length", pkts("unpack ok") + "00zz", "protocol error: bad line length character: 00zz", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warn strings.Builder
			r := newReport(sent, func(name string) bool { return name == "refs/heads/side" }, &warn)
			err := r.decode(strings.NewReader(tc.in))
			got := ""
			if err != nil {
				got = lineOf(err)
			} else {
				got = "unpack " + r.Unpack
				for _, name := range sent {
					if st, ok := r.Statuses[name]; ok && st.OK {
						got += "; " + name + " ok"
					} else if ok {
						got += "; " + name + " ng " + st.Reason
					}
				}
			}
			if got != tc.want || warn.String() != tc.warn || r.Err != err {
				t.Errorf("got %q, warnings %q; want %q, %q", got, warn.String(), tc.want, tc.warn)
			}
		})
	}
}

// TestReportCountsOthers: lines about refs not pushed are counted, not
// kept; git's warning is printed for the first ten.
func TestReportCountsOthers(t *testing.T) {
	lines := []string{"unpack ok"}
	for i := 0; i < 1000; i++ {
		lines = append(lines, fmt.Sprintf("ok refs/heads/b%d", i))
	}
	lines = append(lines, "ng refs/heads/main no", "")
	var warn strings.Builder
	r := newReport([]string{"refs/heads/main"}, nil, &warn)
	if err := r.decode(strings.NewReader(pkts(lines...))); err != nil {
		t.Fatal(err)
	}
	if len(r.Statuses) != 1 || r.unknown != 1000 || strings.Count(warn.String(), "\n") != 11 ||
		!strings.HasSuffix(warn.String(), "warning: remote reported status on 990 more refs that were not pushed\n") {
		t.Fatalf("%d statuses, %d others, warnings:\n%s", len(r.Statuses), r.unknown, warn.String())
	}
}

// TestReportSideband reads a report out of side-band-64k, progress to
// its writer, and takes an error on channel 3 for the upstream's.
func TestReportSideband(t *testing.T) {
	var caps capability.List
	caps.Set(capability.Sideband64k)
	var progress strings.Builder
	inner := pkts("unpack ok", "ng refs/heads/main hook declined", "")
	band := func(b byte, s string) string { return fmt.Sprintf("%04x%c%s", len(s)+5, b, s) }
	for _, tc := range []struct{ name, in, want string }{
		{"report", band(2, "resolving\n") + band(1, inner[:10]) + band(1, inner[10:]) + "0000", "refs/heads/main ng hook declined"},
		{"channel 3", band(1, inner[:14]) + band(3, "out of disk"), "remote error: out of disk"},
	} {
		r := newReport([]string{"refs/heads/main"}, nil, io.Discard)
		got := ""
		if err := r.decode(demux(strings.NewReader(tc.in), &caps, &progress)); err != nil {
			got = lineOf(err)
		} else if st := r.Statuses["refs/heads/main"]; !st.OK {
			got = "refs/heads/main ng " + st.Reason
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if progress.String() != "resolving\n" {
		t.Errorf("progress %q", progress.String())
	}
}

// lineOf is the line git prints for a report it refuses.
func lineOf(err error) string {
	if msg, ok := transport.Describe(err, ""); ok {
		return msg
	}
	if msg, ok := RemoteError(err); ok {
		return msg
	}
	return err.Error()
}
