package upstream

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// The readers of an upstream's answers that FuzzAnswer drives, by the
// first byte of its input.
const (
	answerRound    = iota // v0: a round's shallow lines and acknowledgements
	answerHead            // v0: what comes before the pack
	answerV2Acks          // v2: the acknowledgments section
	answerSections        // v2: the sections before the pack
	answerReport          // a push's report-status
	answerKinds
)

// FuzzAnswer: whatever an upstream answers, the readers of its answers
// return an error or what they read, never panic, and stop where they
// must: a round's acknowledgements at its NAK (or the plain ACK that ends
// a negotiation), the v0 head where the pack starts, the v2
// acknowledgments at the flush or, after "ready", the delim; the v2
// sections right after "packfile". An acknowledged id is counted once; a
// push's report keeps only the statuses of refs pushed and warns of at
// most maxWarnings others one by one.
func FuzzAnswer(f *testing.F) {
	ack := func(s string) string { return "ACK " + idA + " " + s }
	f.Add(append([]byte{answerRound}, pktsV2("shallow "+idA+"\n", "", ack("common")+"\n", "NAK\n")...))
	f.Add(append([]byte{answerRound}, pktsV2("ACK "+idB+"\n", "NAK\n")...))
	f.Add(append([]byte{answerHead}, pktsV2("unshallow "+idB+"\n", "", ack("ready")+"\n", "NAK\n", "ACK "+idA+"\n")+"PACK"...))
	f.Add(append([]byte{answerV2Acks}, pktsV2("acknowledgments\n", ack("")+"\n", "ready\n", "0001", "packfile\n")...))
	f.Add(append([]byte{answerSections}, pktsV2("shallow-info\n", "shallow "+idA+"\n", "0001", "packfile\n")+"PACK"...))
	f.Add(append([]byte{answerReport}, pktsV2("unpack ok\n", "ok refs/heads/main\n", "option refname refs/heads/x\n", "ng refs/heads/b no\n", "ok refs/heads/other\n", "")...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		kind, answer := data[0]%answerKinds, data[1:]
		rd := bytes.NewReader(answer)
		in := bufio.NewReaderSize(rd, 16)
		read := func() []byte { return answer[:len(answer)-rd.Len()-in.Buffered()] }
		l := haveList{}
		g := newNegotiation(&l, kind == answerV2Acks)
		p := &Pack{Deepened: true}
		var err error
		switch kind {
		case answerRound:
			if err = (&advert{format: object.SHA1}).readRound(in, p, g, true); err == nil && !g.over && !endsWithPkt(read(), "NAK") {
				t.Fatalf("a round's answer read up to %q, not its NAK", read())
			}
		case answerHead:
			if err = p.readHead(in, object.SHA1, true); err == nil && ackNext(in) {
				t.Fatalf("the pack starts with an acknowledgement: %q", answer[len(read()):])
			}
		case answerV2Acks:
			if err = g.readV2Acks(in, object.SHA1); err == nil {
				end := "0000"
				if g.ready {
					end = "0001"
				}
				if !bytes.HasSuffix(read(), []byte(end)) {
					t.Fatalf("the acknowledgments (ready %v) read up to %q", g.ready, read())
				}
			}
		case answerSections:
			if err = p.readSections(in, object.SHA1); err == nil && !endsWithPkt(read(), "packfile") {
				t.Fatalf("the sections read up to %q, not to the packfile's header", read())
			}
		case answerReport:
			var warn strings.Builder
			r := newReport([]string{"refs/heads/main", "refs/heads/b"}, nil, &warn)
			err = r.decode(in)
			for name := range r.Statuses {
				if !r.sent[name] {
					t.Fatalf("a status kept for %q, which was not pushed", name)
				}
			}
			if n := strings.Count(warn.String(), "warning: "); n > maxWarnings+1 || n > r.unknown {
				t.Fatalf("%d warnings for %d refs not pushed:\n%s", n, r.unknown, warn.String())
			}
		}
		if len(g.common) != len(g.acked) {
			t.Fatalf("%d acknowledgements kept of %d ids", len(g.common), len(g.acked))
		}
		if err != nil && err.Error() == "" {
			t.Fatal("an error without words")
		}
	})
}

// endsWithPkt reports whether b ends with a pkt-line of payload, with or
// without its newline, its length in either case.
func endsWithPkt(b []byte, payload string) bool {
	for _, p := range []string{payload + "\n", payload} {
		n := len(p) + 4
		if len(b) >= n && string(b[len(b)-len(p):]) == p {
			if size, ok := transport.PktLen(b[len(b)-n:]); ok && size == n {
				return true
			}
		}
	}
	return false
}

// TestEndsWithPkt: the helper of FuzzAnswer's checks.
func TestEndsWithPkt(t *testing.T) {
	for in, want := range map[string]bool{
		pktsV2("NAK\n"):               true,
		pktsV2("NAK"):                 true,
		"0007NAK":                     true,
		"000D" + "packfile\n":         true,
		pktsV2("x", "NAK\n"):          true,
		"0008NAK\n" + "0":             false,
		"0009NAK\n":                   false,
		fmt.Sprintf("%04x", 7) + "AK": false,
	} {
		payload := "NAK"
		if strings.Contains(in, "packfile") {
			payload = "packfile"
		}
		if got := endsWithPkt([]byte(in), payload); got != want {
			t.Errorf("endsWithPkt(%q, %q) = %v", in, payload, got)
		}
	}
}
