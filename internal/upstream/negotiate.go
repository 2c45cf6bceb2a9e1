package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"

	"github.com/git-durable/git-durable/internal/mask"
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// Negotiator gives a fetch its haves, round by round, and learns which the
// upstream has (git's fetch negotiator).
type Negotiator interface {
	// Next returns up to n more haves, none once there are no more.
	Next(n int) []object.ID
	// Ack says that the upstream has id, a have sent: what it reaches
	// need not be sent.
	Ack(id object.ID)
}

// Round sizes and the give-up rule of git's fetch-pack.c: 16 haves first;
// then, over a stateless connection (HTTP, protocol v2), twice as many up
// to 16,384 and 10 % more after that; over a stateful one twice as many
// up to 32 and 32 more after that. Once the upstream has acknowledged a
// have, 256 more without a new acknowledgement end the negotiation.
const (
	initialRound = 16
	pipeSafe     = 32
	largeRound   = 16384
	maxInVain    = 256
)

// negotiation is one fetch's rounds of haves: what to send next, what the
// upstream has acknowledged, and when to stop.
type negotiation struct {
	n         Negotiator
	stateless bool
	v2        bool        // protocol v2: flushAt is one round's size
	flushAt   int         // the haves sent when this round ends
	sent      int         // the haves sent so far
	common    []object.ID // acknowledged, sent again in every stateless request
	acked     map[object.ID]bool
	// asked are the haves sent: an acknowledgement of any other id (an
	// upstream's lie) is no progress.
	asked map[object.ID]bool
	// roundSent and roundAcked count the last v0 round's haves and its
	// new acknowledgements; probe asks for a round of acknowledged
	// haves alone (see next).
	roundSent, roundAcked int
	probe                 bool
	inVain                int // haves sent since the last new acknowledgement
	// claimed: the upstream acknowledged some id, sent or not. Haves in
	// vain end the negotiation only then, as fetch-pack's seen_ack and
	// got_continue; an id never sent sets this and resets nothing.
	claimed bool
	ready   bool // the upstream is ready to send the pack
	// over: a v0 upstream acknowledged a have with a plain ACK, as one
	// without multi_ack acknowledges the first it has; fetch-pack sends
	// no more haves then, and "done".
	over  bool
	trace roundTrace // trace2's events, where GIT_TRACE2_EVENT asks
}

func newNegotiation(n Negotiator, stateless bool) *negotiation {
	return &negotiation{n: n, stateless: stateless, flushAt: initialRound, acked: map[object.ID]bool{}, asked: map[object.ID]bool{}}
}

// grow is git's next_flush: the size after count.
func (g *negotiation) grow(count int) int {
	switch {
	case g.stateless && count < largeRound:
		return count * 2
	case g.stateless:
		return count * 11 / 10
	case count < pipeSafe:
		return count * 2
	default:
		return count + pipeSafe
	}
}

// round returns the next round's new haves (v0: up to the next flush
// point), none when the negotiation is over.
func (g *negotiation) round() []object.ID {
	if g.ready || g.over || g.n == nil || g.gaveUp() {
		return nil
	}
	size := g.flushAt - g.sent
	if g.v2 {
		size = g.flushAt
	}
	haves := g.n.Next(size)
	for _, id := range haves {
		g.asked[id] = true
	}
	g.roundSent, g.roundAcked = len(haves), 0
	g.sent += len(haves)
	g.inVain += len(haves)
	g.flushAt = g.grow(g.flushAt)
	return haves
}

// gaveUp reports whether the haves in vain end the negotiation: 256 of
// them since an acknowledgement was seen (fetch-pack's test).
func (g *negotiation) gaveUp() bool { return g.claimed && g.inVain >= maxInVain }

// next returns the next v0 round: new haves (round), or, with probe, none
// but those acknowledged. A v0 upload-pack says "ready" at the end of a
// round only where every have of it was one it has: a round whose haves
// were acknowledged in part may have found enough and not said so. A
// round of acknowledged haves alone (all of them again over a stateless
// connection, the last one over a stateful one) asks again, at the cost of
// no new have; where the upstream is not ready, the rounds go on.
func (g *negotiation) next() (haves []object.ID, probe bool) {
	if g.probe && !g.ready && !g.over {
		g.probe = false
		if g.stateless {
			return nil, true
		}
		return g.common[len(g.common)-1:], true
	}
	return g.round(), false
}

// ack records an acknowledgement of id; ready says the upstream has found
// enough. An id never sent as a have is no progress: an upstream that
// acknowledges ids of its own choosing does not keep the negotiation
// going (git's fetch-pack counts any id new to it, and sends every local
// commit to such an upstream). It is a claim all the same: from then on
// 256 haves in vain end the rounds, as they end fetch-pack's.
func (g *negotiation) ack(id object.ID, ready bool) {
	g.claimed = true
	if !g.acked[id] && g.asked[id] {
		g.acked[id] = true
		g.roundAcked++
		g.common = append(g.common, id)
		g.n.Ack(id)
		g.inVain = 0
	}
	g.ready = g.ready || ready
}

// writeHaves writes "have" lines of ids, in their order.
func writeHaves(w *bytes.Buffer, ids []object.ID) {
	for _, id := range ids {
		pktline.Writef(w, "have %s\n", id)
	}
}

// readAcks reads a v0 round's answer up to its NAK: "ACK <id> common",
// "ready" or "continue" (multi_ack) each acknowledge a have; a plain "ACK
// <id>" (or one with a status fetch-pack does not know) ends the
// negotiation there, as in fetch-pack's find_common.
func (g *negotiation) readAcks(in *bufio.Reader, f object.Format) error {
	var buf []byte
	for {
		pkt, err := transport.ReadPkt(in, &buf)
		switch {
		case err == io.EOF:
			return errHungUp
		case err != nil:
			return err
		case pkt == nil:
			return errAckFlush
		}
		line := string(bytes.TrimSuffix(pkt, []byte("\n")))
		if line == "NAK" {
			g.probe = !g.ready && g.roundAcked > 0 && g.roundAcked < g.roundSent
			return nil
		}
		if err := g.ackLine(line, f); err != nil || g.over {
			return err
		}
	}
}

// errHungUp is an answer that ends where fetch-pack reads on.
var errHungUp = errors.New("the remote end hung up unexpectedly")

// errAckFlush is a flush where fetch-pack reads an ACK or a NAK.
var errAckFlush = errors.New("git fetch-pack: expected ACK/NAK, got a flush packet")

// notAck is a line where fetch-pack reads an ACK or a NAK, in its words.
func notAck(line string) error {
	return fmt.Errorf("git fetch-pack: expected ACK/NAK, got '%s'", mask.Name(line))
}

// ackLine takes one "ACK <id>[ common| ready| continue]" line as
// fetch-pack's get_ack reads it: the id's digits, then the first of
// "continue", "common" and "ready" found anywhere in the rest; none is a
// plain ACK.
func (g *negotiation) ackLine(line string, f object.Format) error {
	rest, ok := strings.CutPrefix(line, "ACK ")
	if ok {
		if id, after, idOK := parseIDPrefix([]byte(rest), f); idOK {
			switch status := string(after); {
			case strings.Contains(status, "continue"), strings.Contains(status, "common"):
				g.ack(id, false)
			case strings.Contains(status, "ready"):
				g.ack(id, true)
			default:
				g.ack(id, false)
				g.over = true
			}
			return nil
		}
	}
	return notAck(line)
}

// readV2Acks reads the acknowledgments section of an answer to a fetch
// without "done": "NAK", "ACK <id>" and "ready" lines, in any order as
// fetch-pack's process_ack takes them, then a delim where the upstream
// said "ready" (the pack follows), else a flush that ends the answer.
func (g *negotiation) readV2Acks(in *bufio.Reader, f object.Format) error {
	var buf []byte
	pkt, special, err := transport.ReadPacket(in, &buf)
	switch {
	case err == io.EOF:
		return errNoPack
	case err != nil:
		return err
	case special != 0 || string(pkt) != "acknowledgments\n":
		return fmt.Errorf("expected 'acknowledgments', received '%s'", mask.Name(strings.TrimSuffix(string(pkt), "\n")))
	}
	for {
		pkt, special, err := transport.ReadPacket(in, &buf)
		line := strings.TrimSuffix(string(pkt), "\n")
		switch {
		case err == io.EOF:
			return errHungUp
		case err != nil:
			return err
		case special == transport.FlushPkt && g.ready:
			return errors.New("expected packfile to be sent after 'ready'")
		case special == transport.DelimPkt && !g.ready:
			return errors.New("expected no other sections to be sent after no 'ready'")
		case special == transport.FlushPkt, special == transport.DelimPkt:
			return nil
		case special != 0:
			return fmt.Errorf("error processing acks: a %s packet", specialName(special))
		case line == "NAK":
		case line == "ready":
			g.ready = true
		case strings.HasPrefix(line, "ACK "):
			// process_ack takes an id's digits and ignores the rest, and
			// a line whose id does not parse (it resets its count of
			// haves in vain all the same; ours counts only new ids, and
			// takes any ACK for a claim).
			g.claimed = true
			if id, _, ok := parseIDPrefix([]byte(line[len("ACK "):]), f); ok {
				g.ack(id, false)
			}
		default:
			return fmt.Errorf("unexpected acknowledgment line: '%s'", mask.Name(line))
		}
	}
}
