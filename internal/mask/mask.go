// Package mask makes text that others chose safe to print: upstreams
// choose much of what the helpers report (ref names, error lines, side-band
// messages), and none of it may move the cursor, clear the screen or set a
// terminal's title. The wire layer and the command shell both use it.
package mask

import (
	"io"
	"strings"
)

// Printable returns s as git's usage.c prints text in a "fatal:", "error:"
// or "warning:" line: every control character but tab and newline, and
// DEL, becomes '?'.
func Printable(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if isControl(s[i]) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if isControl(c) {
			b[i] = '?'
		}
	}
	return string(b)
}

// isControl reports whether git masks c in a message.
func isControl(c byte) bool {
	return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f
}

// Name is a name from an upstream as a warning quotes it: every control
// character, newline and tab included, becomes '?'.
func Name(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// OneLine keeps a message on one line.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// Writer passes whole messages on to W with Printable applied: the
// unpacker's warnings quote names from a pack (a tree entry, a submodule
// name) that an upstream chose.
type Writer struct{ W io.Writer }

// Write writes Printable(p) to w.W.
func (w Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, Printable(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
