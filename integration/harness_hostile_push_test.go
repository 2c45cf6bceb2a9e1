package integration

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
)

// serveReceive answers a push: the real git receive-pack of the
// repository reads the commands and the pack and decides, and the server
// hands the lines of its report (without their newlines) to lie.report,
// whose emitted lines are sent instead, in the side-band when the client
// asked for one. Progress passes as it is.
func (d *hostileDaemon) serveReceive(c net.Conn, in *bufio.Reader) {
	cmd := exec.Command("git", "receive-pack", d.dir)
	cmd.Env = d.env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if cmd.Start() != nil {
		return
	}
	defer cmd.Wait()
	defer stdin.Close()
	out := bufio.NewReader(stdout)
	w := bufio.NewWriter(c)
	// The advertisement, as it is.
	for {
		p, flush, err := readPkt(out)
		if err != nil {
			return
		}
		writePkt(w, p, flush)
		if flush {
			break
		}
	}
	if w.Flush() != nil {
		return
	}
	// The commands: the first one's capabilities say whether the answer
	// comes in the side-band.
	sideband, commands := false, 0
	for {
		p, flush, err := readPkt(in)
		if err != nil {
			return
		}
		if commands == 0 && !flush {
			_, caps, _ := strings.Cut(p, "\x00")
			sideband = strings.Contains(" "+caps+" ", " side-band-64k ")
		}
		writePkt(stdin, p, flush)
		if flush {
			break
		}
		commands++
	}
	go func() { io.Copy(stdin, in); stdin.Close() }() // the pack
	if commands == 0 || d.lie.report == nil {
		io.Copy(c, out)
		return
	}
	rewriteReport(out, w, sideband, d.lie.report)
	w.Flush()
}

// rewriteReport reads receive-pack's answer to a push from out (in the
// side-band or not), passes its progress on to w, and writes the report
// that report makes of the real one's lines.
func rewriteReport(out *bufio.Reader, w *bufio.Writer, sideband bool, report func(real []string, emit func(line string))) {
	in := out
	if sideband {
		var inner bytes.Buffer
		for {
			p, flush, err := readPkt(out)
			if err != nil {
				return
			}
			if flush {
				break
			}
			if strings.HasPrefix(p, "\x01") {
				inner.WriteString(p[1:])
				continue
			}
			writePkt(w, p, false) // progress, or an error
		}
		in = bufio.NewReader(&inner)
	}
	var real []string
	for {
		p, flush, err := readPkt(in)
		if err != nil || flush {
			break
		}
		real = append(real, strings.TrimSuffix(p, "\n"))
	}
	bw := &bandWriter{w: w, band: sideband}
	report(real, func(line string) { writePkt(bw, line+"\n", false) })
	writePkt(bw, "", true)
	bw.flush()
	if sideband {
		writePkt(w, "", true)
	}
}

// reportRewriter passes requests to a git http-backend and replaces the
// report of each push with what report makes of it, as serveReceive does.
type reportRewriter struct {
	next   http.Handler
	report func(real []string, emit func(line string))
}

func (rr reportRewriter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rr.report == nil || r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/git-receive-pack") {
		rr.next.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	first, _, _ := readPkt(bufio.NewReader(bytes.NewReader(body)))
	_, caps, _ := strings.Cut(first, "\x00")
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	rr.next.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.Code)
	bw := bufio.NewWriter(w)
	rewriteReport(bufio.NewReader(rec.Body), bw, strings.Contains(" "+caps+" ", " side-band-64k "), rr.report)
	bw.Flush()
}

// bandWriter sends what is written to it as side-band channel 1 packets of
// at most 65515 bytes, or as it is without band.
type bandWriter struct {
	w    *bufio.Writer
	band bool
	buf  []byte
}

func (b *bandWriter) Write(p []byte) (int, error) {
	if !b.band {
		return b.w.Write(p)
	}
	b.buf = append(b.buf, p...)
	for len(b.buf) >= 65515 {
		writePkt(b.w, "\x01"+string(b.buf[:65515]), false)
		b.buf = b.buf[65515:]
	}
	return len(p), nil
}

// flush sends what is left.
func (b *bandWriter) flush() {
	if b.band && len(b.buf) > 0 {
		writePkt(b.w, "\x01"+string(b.buf), false)
		b.buf = nil
	}
}
