package upstream

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-durable/git-durable/internal/repo"
	"github.com/git-durable/git-durable/internal/report"
)

// traceIdentity names the helper in its packet lines, where git writes
// the command's name ("fetch", "clone", "upload-pack"): the packets of
// the helper's sessions with the upstream are told apart from those of
// the git that runs it and of an upload-pack it starts.
const traceIdentity = "durable"

// PacketTrace writes the packets of the helper's sessions with the
// upstream where GIT_TRACE_PACKET says, in the format of git's
// packet_trace: a time and a source line (none under GIT_TRACE_BARE),
// "packet:", the identity right-aligned in twelve columns, '>' for what
// was sent and '<' for what was received, and the payload without its
// newlines, bytes outside printable ASCII as a backslash and octal. A
// sidebanded pack is "PACK ..." and not shown, its progress is; the path
// of a packfile URI is "<redacted>" unless GIT_TRACE_REDACT is false; the
// secrets the Redactor knows are never written.
type PacketTrace struct {
	mu     sync.Mutex
	w      io.Writer
	stderr io.Writer
	bare   bool
	redact bool
	scrub  func(string) string
	close  func() error
}

// OpenPacketTrace opens the target GIT_TRACE_PACKET names as git's trace
// keys read it: "1" or "true" is stderr, another digit that file
// descriptor, an absolute path a file appended to; empty, "0" or "false"
// is no trace (nil), and anything else git's warning. scrub removes
// secrets from each line.
func OpenPacketTrace(getenv func(string) string, stderr io.Writer, scrub func(string) string) *PacketTrace {
	const key = "GIT_TRACE_PACKET"
	target := getenv(key)
	t := &PacketTrace{stderr: stderr, scrub: scrub, redact: true}
	w, on := report.TraceTarget(target, key, stderr)
	switch {
	case !on:
		return nil
	case w != nil:
		t.w = w
	case filepath.IsAbs(target):
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
		if err != nil {
			fmt.Fprintf(stderr, "warning: could not open '%s' for tracing: %s\n", target, reason(err))
			return nil
		}
		t.w, t.close = f, f.Close
	default:
		fmt.Fprintf(stderr, "warning: unknown trace value for '%s': %s\n"+
			"         If you want to trace into a file, then please set %s\n"+
			"         to an absolute pathname (starting with /)\n", key, target, key)
		return nil
	}
	t.bare, _ = repo.ParseBool(getenv("GIT_TRACE_BARE"))
	if v := getenv("GIT_TRACE_REDACT"); v != "" {
		if b, ok := repo.ParseBool(v); ok {
			t.redact = b
		}
	}
	return t
}

// Close closes a trace file the trace opened.
func (t *PacketTrace) Close() error {
	if t == nil || t.close == nil {
		return nil
	}
	return t.close()
}

// packet writes one packet's line: dir is '>' or '<'.
func (t *PacketTrace) packet(dir byte, payload []byte) {
	var b strings.Builder
	if !t.bare {
		_, file, line, _ := runtime.Caller(0)
		b.WriteString(time.Now().Format("15:04:05.000000") + " " + filepath.Base(file) + ":" + strconv.Itoa(line))
		for b.Len() < 40 {
			b.WriteByte(' ')
		}
	}
	fmt.Fprintf(&b, "packet: %12s%c ", traceIdentity, dir)
	for _, c := range payload {
		switch {
		case c == '\n':
		case c >= 0x20 && c <= 0x7e:
			b.WriteByte(c)
		default:
			b.WriteString("\\" + strconv.FormatInt(int64(c), 8))
		}
	}
	b.WriteByte('\n')
	s := b.String()
	if t.scrub != nil {
		s = t.scrub(s)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w == nil {
		return
	}
	// One write per line, whole lines between other processes' (O_APPEND).
	if _, err := io.WriteString(t.w, s); err != nil {
		fmt.Fprintf(t.stderr, "warning: unable to write trace for GIT_TRACE_PACKET: %s\n", reason(err))
		t.w = nil
	}
}

// reason is the system's words for err, as strerror gives them.
func reason(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		err = pe.Err
	}
	s := err.Error()
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}
