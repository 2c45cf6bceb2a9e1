package upstream

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"

	"github.com/git-durable/git-durable/object"
)

const (
	idA = "1111111111111111111111111111111111111111"
	idB = "2222222222222222222222222222222222222222"
)

// answer frames lines as pkt-lines: "0000" is a flush, "0001" a delim.
func answer(lines ...string) *bufio.Reader {
	var b bytes.Buffer
	for _, l := range lines {
		switch l {
		case "0000":
			pktline.WriteFlush(&b)
		case "0001":
			pktline.WriteDelim(&b)
		default:
			pktline.Writeln(&b, l)
		}
	}
	return bufio.NewReader(&b)
}

// TestReadAcks: a v0 round's answer as fetch-pack's get_ack and
// find_common read it — what it acknowledges, whether the upstream is
// ready or the negotiation over, and git's words for what is not an
// answer.
func TestReadAcks(t *testing.T) {
	for _, tc := range []struct {
		name        string
		lines       []string
		acked       int
		ready, over bool
		err         string
		unsent      bool // only idA was sent
	}{
		{name: "NAK", lines: []string{"NAK"}},
		{name: "common", lines: []string{"ACK " + idA + " common", "ACK " + idB + " common", "NAK"}, acked: 2},
		{name: "ready", lines: []string{"ACK " + idA + " common", "ACK " + idB + " ready", "NAK"}, acked: 2, ready: true},
		{name: "continue", lines: []string{"ACK " + idA + " continue", "NAK"}, acked: 1},
		{name: "an id never sent", lines: []string{"ACK " + idB + " common", "NAK"}, acked: 0, unsent: true},
		{name: "plain ACK ends it", lines: []string{"ACK " + idA, "ACK " + idB + " common", "NAK"}, acked: 1, over: true},
		{name: "unknown status", lines: []string{"ACK " + idA + " later", "NAK"}, acked: 1, over: true},
		// get_ack: the first of continue, common, ready anywhere after the id.
		{name: "status glued", lines: []string{"ACK " + idA + "common", "ACK " + idB + "ready", "NAK"}, acked: 2, ready: true},
		{name: "common before ready", lines: []string{"ACK " + idA + " ready common", "NAK"}, acked: 1},
		{name: "upper case", lines: []string{"ACK " + strings.Repeat("A", 40) + " common", "NAK"}, acked: 1},
		{name: "flush", lines: []string{"0000"}, err: "git fetch-pack: expected ACK/NAK, got a flush packet"},
		{name: "hung up", lines: []string{"ACK " + idA + " common"}, acked: 1, err: "the remote end hung up unexpectedly"},
		{name: "short id", lines: []string{"ACK 1111 common"}, err: "git fetch-pack: expected ACK/NAK, got 'ACK 1111 common'"},
		{name: "other", lines: []string{"packfile"}, err: "git fetch-pack: expected ACK/NAK, got 'packfile'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := haveList{}
			g := newNegotiation(&l, false)
			for _, hex := range []string{idA, idB, strings.Repeat("a", 40)} {
				if id, _ := object.ParseID(hex); hex == idA || !tc.unsent {
					g.asked[id] = true
				}
			}
			err := g.readAcks(answer(tc.lines...), object.SHA1)
			if got := errString(err); got != tc.err {
				t.Fatalf("error %q, want %q", got, tc.err)
			}
			if len(g.common) != tc.acked || g.ready != tc.ready || g.over != tc.over {
				t.Errorf("acked %d ready %v over %v, want %d %v %v", len(g.common), g.ready, g.over, tc.acked, tc.ready, tc.over)
			}
			if tc.over && g.round() != nil {
				t.Error("a round after the negotiation was over")
			}
		})
	}
}

// TestReadV2Acks: a v2 acknowledgments section as fetch-pack's
// process_ack reads it: NAK, ACK and ready in any order; a delim after
// "ready" (the pack follows), a flush without it; git's words otherwise.
func TestReadV2Acks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines []string
		acked int
		ready bool
		err   string
	}{
		{name: "NAK", lines: []string{"acknowledgments", "NAK", "0000"}},
		{name: "acks", lines: []string{"acknowledgments", "ACK " + idA, "ACK " + idB, "0000"}, acked: 2},
		{name: "ready", lines: []string{"acknowledgments", "ACK " + idA, "ready", "0001"}, acked: 1, ready: true},
		{name: "ACK after ready", lines: []string{"acknowledgments", "ready", "ACK " + idA, "NAK", "0001"}, acked: 1, ready: true},
		{name: "ready without pack", lines: []string{"acknowledgments", "ready", "0000"}, ready: true,
			err: "expected packfile to be sent after 'ready'"},
		{name: "a section without ready", lines: []string{"acknowledgments", "NAK", "0001"},
			err: "expected no other sections to be sent after no 'ready'"},
		{name: "hung up", lines: []string{"acknowledgments", "NAK"}, err: "the remote end hung up unexpectedly"},
		{name: "other line", lines: []string{"acknowledgments", "shallow " + idA, "0000"},
			err: "unexpected acknowledgment line: 'shallow " + idA + "'"},
		{name: "no section", lines: []string{"packfile", "0000"}, err: "expected 'acknowledgments', received 'packfile'"},
		// process_ack: an id's digits, a line whose id does not parse ignored.
		{name: "id with a tail", lines: []string{"acknowledgments", "ACK " + idA + "tail", "0000"}, acked: 1},
		{name: "no id", lines: []string{"acknowledgments", "ACK not-an-id", "ACK " + idB, "0000"}, acked: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := haveList{}
			g := newNegotiation(&l, true)
			for _, hex := range []string{idA, idB} {
				id, _ := object.ParseID(hex)
				g.asked[id] = true
			}
			err := g.readV2Acks(answer(tc.lines...), object.SHA1)
			if got := errString(err); got != tc.err {
				t.Fatalf("error %q, want %q", got, tc.err)
			}
			if len(g.common) != tc.acked || g.ready != tc.ready {
				t.Errorf("acked %d ready %v, want %d %v", len(g.common), g.ready, tc.acked, tc.ready)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimSpace(err.Error())
}
