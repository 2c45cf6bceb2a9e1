package integration

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
)

// hostileDaemon is a git:// server written for the tests: every connection
// runs the real git upload-pack on one repository, and the server changes
// what upload-pack says before it reaches the client, as a row of the
// hostile table asks. Plain git and git-remote-durable meet the same lies.
type hostileDaemon struct {
	url string // git://127.0.0.1:<port>/repo
	lie lie
	env []string
	dir string

	mu   sync.Mutex
	reqs []string // the request lines received, whatever path they name
}

// requests returns the request lines received since the last call, and
// forgets them.
func (d *hostileDaemon) requests() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	reqs := d.reqs
	d.reqs = nil
	return reqs
}

// lie is what the server changes.
type lie struct {
	// adv rewrites the advertisement: the payloads of its packets, the
	// first with its capabilities, without the flush that ends it.
	adv func(pkts []string) []string
	// resp rewrites each packet of upload-pack's answer to the request
	// (flush is a packet of "" with flush true); nil keeps the bytes.
	resp func(pkt string, flush bool) []pktOut
	// report replaces the report of a push (see serveReceive).
	report func(real []string, emit func(line string))
	// pack, when set, is sent instead of upload-pack's answer: a pack
	// upload-pack could not make (it walks what it packs), for refs the
	// advertisement names.
	pack []byte
	// packFor, over protocol v2, is given each fetch request (its payloads)
	// and returns the pack to send instead of upload-pack's answer, or nil
	// to let upload-pack answer it.
	packFor func(req []string) []byte

	// v2 makes the server speak protocol v2 to a client that asks for it
	// (as git daemon hands upload-pack the request's "version=2"); then
	// caps2 and lsRefs rewrite the payloads of the capability
	// advertisement and of the answer to ls-refs (without their flush),
	// and resp and pack apply to the answer to fetch (see serveV2).
	v2     bool
	caps2  func(lines []string) []string
	lsRefs func(lines []string) []string
}

// pktOut is one packet the server sends: a payload, a flush, or (protocol
// v2) a delim.
type pktOut struct {
	payload string
	flush   bool
	delim   bool
	// cut writes half of the packet and closes the connection: a network
	// cut in the middle of the answer.
	cut bool
	// raw, when set, is written as it is in place of a packet: a length
	// git refuses, say.
	raw string
}

// startHostile serves dir through upload-pack on 127.0.0.1 with lie
// applied, whatever path a request names; the listener ends with the test.
func startHostile(t *testing.T, env []string, dir string, l lie) *hostileDaemon {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &hostileDaemon{url: fmt.Sprintf("git://127.0.0.1:%d/repo", ln.Addr().(*net.TCPAddr).Port), lie: l, env: env, dir: dir}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); d.serve(c) }()
		}
	}()
	return d
}

// serve answers one connection; any failure just closes it.
func (d *hostileDaemon) serve(c net.Conn) {
	defer c.Close()
	in := bufio.NewReader(c)
	req, _, err := readPkt(in)
	if err != nil {
		return
	}
	d.mu.Lock()
	d.reqs = append(d.reqs, req)
	d.mu.Unlock()
	if strings.HasPrefix(req, "git-receive-pack ") {
		d.serveReceive(c, in)
		return
	}
	if !strings.HasPrefix(req, "git-upload-pack ") {
		return
	}
	if d.lie.v2 && strings.HasSuffix(req, "\x00version=2\x00") {
		d.serveV2(c, in)
		return
	}
	cmd := exec.Command("git", "upload-pack", "--strict", d.dir)
	cmd.Env = d.env // no GIT_PROTOCOL: protocol v0 whatever the client asked
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if cmd.Start() != nil {
		return
	}
	defer cmd.Wait()
	out := bufio.NewReader(stdout)
	var adv []string
	for {
		p, flush, err := readPkt(out)
		if err != nil {
			stdin.Close()
			return
		}
		if flush {
			break
		}
		adv = append(adv, p)
	}
	if d.lie.adv != nil {
		adv = d.lie.adv(adv)
	}
	w := bufio.NewWriter(c)
	for _, p := range adv {
		writePkt(w, p, false)
	}
	writePkt(w, "", true)
	if w.Flush() != nil {
		stdin.Close()
		return
	}
	if d.lie.pack != nil {
		stdin.Close()
		answerPack(in, c, d.lie.pack)
		return
	}
	go func() { io.Copy(stdin, in); stdin.Close() }()
	if d.lie.resp == nil {
		io.Copy(c, out)
		return
	}
	for {
		p, flush, err := readPkt(out)
		if err != nil {
			w.Flush()
			return
		}
		for _, o := range d.lie.resp(p, flush) {
			if o.cut {
				writeCut(w, o)
				c.Close()
				cmd.Process.Kill() // it may wait to write what nobody reads
				return
			}
			if o.raw != "" {
				io.WriteString(w, o.raw)
				continue
			}
			writePkt(w, o.payload, o.flush)
		}
		// What upload-pack said goes on before the proxy waits for more:
		// the NAK that ends a round of acknowledgements has no flush
		// after it.
		if (flush || out.Buffered() == 0) && w.Flush() != nil {
			return
		}
	}
}

// answerPack reads a v0 request (wants, then rounds of haves, each ended
// by a flush, then "done"), answers every round of haves with NAK, as a
// server that has none of them, and "done" with NAK and the pack, in
// side-band packets when the first want asked for them.
func answerPack(in *bufio.Reader, c net.Conn, pack []byte) {
	w := bufio.NewWriter(c)
	band, flushes := 0, 0
	for {
		p, flush, err := readPkt(in)
		if err != nil {
			return
		}
		switch {
		case flush:
			if flushes++; flushes > 1 {
				writePkt(w, "NAK\n", false)
				w.Flush()
			}
			continue
		case strings.HasPrefix(p, "want ") && band == 0:
			band = -1
			for _, c := range strings.Fields(p) {
				switch c {
				case "side-band-64k":
					band = 65515
				case "side-band":
					band = max(band, 999)
				}
			}
		}
		if strings.TrimSpace(p) == "done" {
			break
		}
	}
	writePkt(w, "NAK\n", false)
	if band <= 0 {
		w.Write(pack)
		w.Flush()
		return
	}
	for len(pack) > 0 {
		n := min(band, len(pack))
		writePkt(w, "\x01"+string(pack[:n]), false)
		pack = pack[n:]
	}
	writePkt(w, "", true)
	w.Flush()
}

// readPkt reads one pkt-line: its payload, or flush for "0000".
func readPkt(r *bufio.Reader) (string, bool, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", false, err
	}
	n, err := strconv.ParseUint(string(h[:]), 16, 16)
	if err != nil {
		return "", false, err
	}
	if n == 0 {
		return "", true, nil
	}
	if n < 4 {
		return "", false, fmt.Errorf("bad pkt-line length %d", n)
	}
	b := make([]byte, n-4)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", false, err
	}
	return string(b), false, nil
}

// writePkt writes one pkt-line, or a flush.
// writeCut writes the first half of the packet o and flushes w.
func writeCut(w *bufio.Writer, o pktOut) {
	var b bytes.Buffer
	writePkt(&b, o.payload, false)
	w.Write(b.Bytes()[:b.Len()/2])
	w.Flush()
}

func writePkt(w io.Writer, payload string, flush bool) {
	if flush {
		io.WriteString(w, "0000")
		return
	}
	fmt.Fprintf(w, "%04x%s", len(payload)+4, payload)
}

// renameFirst makes the first advertised ref (HEAD, with the
// capabilities) carry name instead, so that go-git's parser keeps whatever
// name holds.
func renameFirst(name string) func([]string) []string {
	return func(pkts []string) []string {
		id, rest, _ := strings.Cut(pkts[0], " ")
		_, caps, _ := strings.Cut(rest, "\x00")
		pkts[0] = id + " " + name + "\x00" + caps
		return pkts
	}
}

// onPack sends extra before the first pack data packet (side-band channel
// 1), or at the end of the answer, just before its final flush.
func onPack(extra string, atEnd bool) func(string, bool) []pktOut {
	done := false
	return func(p string, flush bool) []pktOut {
		out := []pktOut{{payload: p, flush: flush}}
		if done {
			return out
		}
		if (!atEnd && !flush && strings.HasPrefix(p, "\x01")) || (atEnd && flush) {
			done = true
			return append([]pktOut{{payload: extra}}, out...)
		}
		return out
	}
}

// mirrored makes an upstream in a new directory base and a mirror clone of
// it beside it: the hostile tests' starting point, before the upstream
// advances and a fake server lies about it.
func mirrored(t *testing.T, env []string) (base, up, mirror string) {
	t.Helper()
	base = t.TempDir()
	up = newUpstream(t, env, base, "up.git")
	mirror = filepath.Join(base, "m.git")
	gittest.Git(t, env, base, "clone", "-q", "--mirror", up, mirror)
	return base, up, mirror
}
