package remote

import (
	"bytes"
	"io"
)

// Suffixes git's sideband.c appends to each line of the upstream's
// messages: clear to the end of the line on a terminal, spaces otherwise.
const (
	ansiSuffix = "\033[K"
	dumbSuffix = "        "
)

// maxPending bounds a message line held back while its end is awaited.
const maxPending = 64 << 10

// relay shows what the upstream sends on the progress channel the way git
// does: every line (ended by '\n' or '\r') prefixed with "remote: " and
// followed by a suffix that clears what a longer line left.
type relay struct {
	w       io.Writer
	suffix  string
	pending []byte // the start of a line whose end has not come yet
}

func (h *helper) relay() *relay {
	r := &relay{w: h.errw, suffix: dumbSuffix}
	if h.env.IsTerminal && h.env.Getenv("TERM") != "dumb" {
		r.suffix = ansiSuffix
	}
	return r
}

// Write relays one progress packet; it never fails the transfer.
func (r *relay) Write(p []byte) (int, error) {
	n := len(p)
	var out bytes.Buffer
	for len(p) > 0 {
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			if len(r.pending) == 0 {
				r.pending = append(r.pending, "remote: "...)
			}
			r.pending = appendMasked(r.pending, p)
			if len(r.pending) > maxPending {
				out.Write(r.pending)
				out.WriteString("\n")
				r.pending = r.pending[:0]
			}
			break
		}
		if len(r.pending) > 0 && i == 0 {
			r.pending = append(r.pending, r.suffix...)
		}
		if len(r.pending) == 0 {
			r.pending = append(r.pending, "remote: "...)
		}
		if i > 0 {
			r.pending = appendMasked(r.pending, p[:i])
			r.pending = append(r.pending, r.suffix...)
		}
		r.pending = append(r.pending, p[i])
		out.Write(r.pending)
		r.pending = r.pending[:0]
		p = p[i+1:]
	}
	if out.Len() > 0 {
		r.w.Write(out.Bytes())
	}
	return n, nil
}

// flush ends a message the upstream left without a line end.
func (r *relay) flush() {
	if len(r.pending) > 0 {
		r.w.Write(append(r.pending, '\n'))
		r.pending = r.pending[:0]
	}
}

// appendMasked appends the upstream's text to dst as newer git's sideband.c
// shows it: a control character becomes caret notation ("^[" for ESC, "^?"
// for DEL), so that a server cannot move the cursor, rewrite the screen or
// set the terminal's title; tab stays, and so does an ANSI colour sequence
// (ESC '[' digits and ';' 'm'), which servers use in their messages.
func appendMasked(dst, src []byte) []byte {
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c >= 0x20 && c != 0x7f, c == '\t':
			dst = append(dst, c)
		case c == 0x1b && colourLen(src[i:]) > 0:
			n := colourLen(src[i:])
			dst = append(dst, src[i:i+n]...)
			i += n - 1
		case c == 0x7f:
			dst = append(dst, '^', '?')
		default:
			dst = append(dst, '^', c+0x40)
		}
	}
	return dst
}

// colourLen is the length of the ANSI colour sequence s starts with, or 0.
func colourLen(s []byte) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'm':
			return i + 1
		case c == ';' || (c >= '0' && c <= '9'):
		default:
			return 0
		}
	}
	return 0
}
