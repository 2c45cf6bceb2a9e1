package upstream

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-git/go-git/v6/plumbing/format/pktline"
)

// bareTrace is a PacketTrace into a buffer, with GIT_TRACE_BARE's lines.
func bareTrace(t *testing.T, env map[string]string, scrub func(string) string) (*PacketTrace, *bytes.Buffer) {
	var out bytes.Buffer
	env["GIT_TRACE_PACKET"] = "1"
	if _, ok := env["GIT_TRACE_BARE"]; !ok {
		env["GIT_TRACE_BARE"] = "1"
	}
	pt := OpenPacketTrace(func(k string) string { return env[k] }, &out, scrub)
	if pt == nil {
		t.Fatal("no trace")
	}
	return pt, &out
}

// TestPacketScan: the lines of a stream cut anywhere are traced as git's
// packet_trace writes them — newlines dropped, other unprintable bytes in
// octal, flush, delim and response end by their digits, a sidebanded pack
// as "PACK ..." with its progress shown and its data not, nothing after a
// pack sent bare.
func TestPacketScan(t *testing.T) {
	var stream bytes.Buffer
	pktline.Writeln(&stream, "version 2")
	pktline.Writeln(&stream, "tab\there, é")
	pktline.WriteDelim(&stream)
	pktline.WriteString(&stream, "packfile\n")
	pktline.WriteString(&stream, "\x02Counting objects: 3\r")
	pktline.WriteString(&stream, "\x01PACK\x00\x00\x00\x02")
	pktline.WriteString(&stream, "\x01pack data, not shown")
	pktline.WriteString(&stream, "\x02done.\n")
	pktline.WriteFlush(&stream)
	pktline.WriteResponseEnd(&stream)
	want := "packet:      durable< version 2\n" +
		"packet:      durable< tab\\11here, \\303\\251\n" +
		"packet:      durable< 0001\n" +
		"packet:      durable< packfile\n" +
		"packet:      durable< \\2Counting objects: 3\\15\n" +
		"packet:      durable< PACK ...\n" +
		"packet:      durable< \\2done.\n" +
		"packet:      durable< 0000\n" +
		"packet:      durable< 0002\n"
	for _, step := range []int{1, 3, stream.Len()} {
		pt, out := bareTrace(t, map[string]string{}, nil)
		s := &packetScan{t: pt, dir: '<'}
		b := stream.Bytes()
		for i := 0; i < len(b); i += step {
			s.Write(b[i:min(i+step, len(b))])
		}
		if out.String() != want {
			t.Errorf("in pieces of %d:\n%s\nwant\n%s", step, out, want)
		}
	}

	// v0 without a sideband: the pack follows the last line bare.
	pt, out := bareTrace(t, map[string]string{}, nil)
	s := &packetScan{t: pt, dir: '<'}
	var v0 bytes.Buffer
	pktline.Writeln(&v0, "NAK")
	v0.WriteString("PACK\x00\x00\x00\x020030 looks like a line")
	s.Write(v0.Bytes())
	if out.String() != "packet:      durable< NAK\n" {
		t.Errorf("bare pack: %q", out)
	}
}

// TestPacketTraceRedacts: a packfile URI's path is "<redacted>" unless
// GIT_TRACE_REDACT is false, and the secrets the scrub knows are never
// written.
func TestPacketTraceRedacts(t *testing.T) {
	var stream bytes.Buffer
	pktline.Writeln(&stream, "packfile-uris")
	pktline.Writeln(&stream, strings.Repeat("ab", 20)+" https://127.0.0.1/secret/path.pack")
	pktline.WriteDelim(&stream)
	pktline.Writeln(&stream, "ERR the password is hunter2")
	scrub := func(s string) string { return strings.ReplaceAll(s, "hunter2", "<redacted>") }
	for _, tc := range []struct{ redact, uri string }{
		{"", "https://127.0.0.1/<redacted>"},
		{"false", "https://127.0.0.1/secret/path.pack"},
	} {
		env := map[string]string{}
		if tc.redact != "" {
			env["GIT_TRACE_REDACT"] = tc.redact
		}
		pt, out := bareTrace(t, env, scrub)
		(&packetScan{t: pt, dir: '<'}).Write(stream.Bytes())
		got := out.String()
		if !strings.Contains(got, strings.Repeat("ab", 20)+" "+tc.uri+"\n") || strings.Contains(got, "hunter2") ||
			!strings.Contains(got, "durable< ERR the password is <redacted>\n") {
			t.Errorf("GIT_TRACE_REDACT=%q:\n%s", tc.redact, got)
		}
	}
}

// TestOpenPacketTrace: GIT_TRACE_PACKET's values as git's trace keys read
// them, and a line's time and source padded to column 40.
func TestOpenPacketTrace(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "trace")
	for _, tc := range []struct{ value, warning string }{
		{"", ""}, {"0", ""}, {"false", ""}, {"FALSE", ""},
		{"relative", "warning: unknown trace value for 'GIT_TRACE_PACKET': relative\n" +
			"         If you want to trace into a file, then please set GIT_TRACE_PACKET\n" +
			"         to an absolute pathname (starting with /)\n"},
		{filepath.Join(dir, "missing", "trace"), "warning: could not open '" + filepath.Join(dir, "missing", "trace") + "' for tracing: No such file or directory\n"},
	} {
		var stderr bytes.Buffer
		pt := OpenPacketTrace(func(k string) string { return map[string]string{"GIT_TRACE_PACKET": tc.value}[k] }, &stderr, nil)
		if pt != nil || stderr.String() != tc.warning {
			t.Errorf("%q: trace %v, warning %q; want none and %q", tc.value, pt != nil, stderr.String(), tc.warning)
		}
	}
	pt := OpenPacketTrace(func(k string) string { return map[string]string{"GIT_TRACE_PACKET": file}[k] }, nil, nil)
	pt.packet('>', []byte("want 1234\n"))
	pt.Close()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{6} trace\.go:\d+ +packet:      durable> want 1234\n$`).Match(b) || strings.Index(string(b), "packet:") != 40 {
		t.Errorf("line %q", b)
	}
}
