package integration

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
)

// serveV2 answers a connection that asked for protocol v2 with the real
// git upload-pack speaking v2, the lie applied: the capability
// advertisement through caps2, each command of the client passed on, the
// answer to ls-refs through lsRefs, the answer to fetch packet by packet
// through resp, or, with pack, a packfile section of it instead of
// upload-pack's answer.
func (d *hostileDaemon) serveV2(c net.Conn, in *bufio.Reader) {
	cmd := exec.Command("git", "upload-pack", "--strict", d.dir)
	cmd.Env = append(append([]string{}, d.env...), "GIT_PROTOCOL=version=2")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if cmd.Start() != nil {
		return
	}
	defer cmd.Wait()
	defer stdin.Close()
	out := bufio.NewReader(stdout)
	w := bufio.NewWriter(c)
	caps, ok := readPkts2(out)
	if !ok {
		return
	}
	if d.lie.caps2 != nil {
		caps = d.lie.caps2(caps)
	}
	writeLines(w, caps)
	for w.Flush() == nil {
		var req []pktOut
		for {
			p, kind, err := readPkt2(in)
			if err != nil {
				return
			}
			req = append(req, pktOut{payload: p, flush: kind == 0, delim: kind == 1})
			if kind == 0 {
				break
			}
		}
		command := strings.TrimSuffix(req[0].payload, "\n") // git's fetch-pack sends "command=fetch" bare
		pack := d.lie.pack
		if command == "command=fetch" && d.lie.packFor != nil {
			var lines []string
			for _, p := range req {
				lines = append(lines, p.payload)
			}
			pack = d.lie.packFor(lines)
		}
		if command == "command=fetch" && pack != nil {
			done := false
			for _, p := range req {
				done = done || p.payload == "done\n"
			}
			if !done { // a negotiation round: say ready, then send the pack
				for _, l := range []string{"acknowledgments\n", "NAK\n", "ready\n"} {
					writePkt(w, l, false)
				}
				writePkt2(w, pktOut{delim: true})
			}
			writePkt2(w, pktOut{payload: "packfile\n"})
			for len(pack) > 0 {
				n := min(65515, len(pack))
				writePkt2(w, pktOut{payload: "\x01" + string(pack[:n])})
				pack = pack[n:]
			}
			writePkt2(w, pktOut{flush: true})
			continue
		}
		for _, p := range req {
			writePkt2(stdin, p)
		}
		if req[0].flush { // the end of the session
			return
		}
		if command == "command=ls-refs" {
			lines, ok := readPkts2(out)
			if !ok {
				return
			}
			if d.lie.lsRefs != nil {
				lines = d.lie.lsRefs(lines)
			}
			writeLines(w, lines)
			continue
		}
		for {
			p, kind, err := readPkt2(out)
			if err != nil {
				return
			}
			o := pktOut{payload: p, flush: kind == 0, delim: kind == 1}
			outs := []pktOut{o}
			if d.lie.resp != nil {
				outs = d.lie.resp(p, kind == 0)
				if kind == 1 {
					outs = []pktOut{o} // a delim passes as it is
				}
			}
			for _, o := range outs {
				if o.cut {
					writeCut(w, o)
					c.Close()
					cmd.Process.Kill() // it may wait to write what nobody reads
					return
				}
				writePkt2(w, o)
			}
			if kind == 0 {
				break
			}
		}
	}
}

// readPkt2 reads one pkt-line of protocol v2: its payload, with kind 0 for
// a flush, 1 for a delim, 2 for a payload.
func readPkt2(r *bufio.Reader) (string, int, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return "", 0, err
	}
	n, err := strconv.ParseUint(string(h[:]), 16, 16)
	switch {
	case err != nil:
		return "", 0, err
	case n < 2:
		return "", int(n), nil
	case n < 4:
		return "", 0, fmt.Errorf("bad pkt-line length %d", n)
	}
	b := make([]byte, n-4)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", 0, err
	}
	return string(b), 2, nil
}

// readPkts2 reads payloads up to a flush.
func readPkts2(r *bufio.Reader) ([]string, bool) {
	var lines []string
	for {
		p, kind, err := readPkt2(r)
		if err != nil || kind == 1 {
			return nil, false
		}
		if kind == 0 {
			return lines, true
		}
		lines = append(lines, p)
	}
}

// writePkt2 writes one packet.
func writePkt2(w io.Writer, o pktOut) {
	switch {
	case o.delim:
		io.WriteString(w, "0001")
	case o.raw != "":
		io.WriteString(w, o.raw)
	default:
		writePkt(w, o.payload, o.flush)
	}
}

// writeLines writes payloads and a flush.
func writeLines(w io.Writer, lines []string) {
	for _, l := range lines {
		writePkt(w, l, false)
	}
	writePkt(w, "", true)
}

// beforeSection sends extra (payloads; "0001" a delim) before the section
// of a v2 answer to fetch whose header is header.
func beforeSection(header string, extra ...string) func(string, bool) []pktOut {
	return func(p string, flush bool) []pktOut {
		out := []pktOut{{payload: p, flush: flush}}
		if p != header {
			return out
		}
		var pre []pktOut
		for _, e := range extra {
			pre = append(pre, pktOut{payload: e, delim: e == "0001"})
		}
		return append(pre, out...)
	}
}

// inSection adds lines at the start of the section whose header is
// header, or sends a section of them before "packfile\n" when the answer
// has none.
func inSection(header string, lines ...string) func(string, bool) []pktOut {
	seen := false
	return func(p string, flush bool) []pktOut {
		out := []pktOut{{payload: p, flush: flush}}
		switch {
		case p == header:
			seen = true
			for _, l := range lines {
				out = append(out, pktOut{payload: l})
			}
		case p == "packfile\n" && !seen:
			pre := []pktOut{{payload: header}}
			for _, l := range lines {
				pre = append(pre, pktOut{payload: l})
			}
			out = append(append(pre, pktOut{delim: true}), out...)
		}
		return out
	}
}

// addFirstRef adds a ref named name, at the id of the answer's first ref,
// before the refs of an ls-refs answer.
func addFirstRef(name string) func([]string) []string {
	return func(lines []string) []string {
		id, _, _ := strings.Cut(lines[0], " ")
		return append([]string{id + " " + name + "\n"}, lines...)
	}
}
