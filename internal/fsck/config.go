package fsck

import (
	"bytes"
	"errors"
	"math"
)

// This file is a small git-config parser, enough to read a .gitmodules blob
// the way git 2.39's git_config_from_mem does, including its quirks: the
// blob is read as signed chars, so a 0xff byte reads as EOF and a UTF-8 BOM
// is not skipped; "\r\n" reads as "\n"; keys and values are C strings and
// end at a NUL.

const cfgEOF = -1

var errConfigSyntax = errors.New("fsck: bad config syntax")

type cfgParser struct {
	buf   []byte
	pos   int
	total int
	eof   bool
}

func (p *cfgParser) getc() int {
	if p.pos < len(p.buf) {
		c := p.buf[p.pos]
		p.pos++
		if c == 0xff {
			return cfgEOF
		}
		return int(c)
	}
	return cfgEOF
}

// next returns the next character, like git's get_next_char.
func (p *cfgParser) next() int {
	c := p.getc()
	if c == '\r' {
		if c = p.getc(); c != '\n' {
			if c != cfgEOF {
				p.pos--
			}
			c = '\r'
		}
	}
	if c != cfgEOF {
		if p.total++; p.total > math.MaxInt32 {
			p.eof = true
			return '\n'
		}
	}
	if c == cfgEOF {
		p.eof = true
		c = '\n'
	}
	return c
}

func cfgSpace(c int) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func cfgAlpha(c int) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }
func cfgKeyChar(c int) bool {
	return cfgAlpha(c) || ('0' <= c && c <= '9') || c == '-'
}
func cfgLower(c int) byte { return lowerASCII(byte(c)) }

// parseConfig calls fn for each "section[.subsection].key" (value nil for
// a key without '=') until the end or a syntax error, which it returns.
func parseConfig(data []byte, fn func(key string, value *string)) error {
	p := &cfgParser{buf: data}
	var name []byte
	base := 0
	comment := false
	for {
		c := p.next()
		switch {
		case c == '\n':
			if p.eof {
				return nil
			}
			comment = false
			continue
		case comment, cfgSpace(c):
			continue
		case c == '#' || c == ';':
			comment = true
			continue
		case c == '[':
			name = name[:0]
			var ok bool
			if name, ok = p.section(name); !ok || len(name) < 1 {
				return errConfigSyntax
			}
			name = append(name, '.')
			base = len(name)
			continue
		case !cfgAlpha(c):
			return errConfigSyntax
		}
		name = append(name[:base], cfgLower(c))
		var ok bool
		if name, ok = p.entry(name, fn); !ok {
			return errConfigSyntax
		}
	}
}

// section reads a section header after '[' (git's get_base_var).
func (p *cfgParser) section(name []byte) ([]byte, bool) {
	for {
		c := p.next()
		switch {
		case p.eof:
			return name, false
		case c == ']':
			return name, true
		case cfgSpace(c):
			return p.subsection(name, c)
		case !cfgKeyChar(c) && c != '.':
			return name, false
		}
		name = append(name, cfgLower(c))
	}
}

// subsection reads ` "sub"]` (git's get_extended_base_var).
func (p *cfgParser) subsection(name []byte, c int) ([]byte, bool) {
	for {
		if c == '\n' {
			return name, false
		}
		if c = p.next(); !cfgSpace(c) {
			break
		}
	}
	if c != '"' {
		return name, false
	}
	name = append(name, '.')
	for {
		c := p.next()
		if c == '\n' {
			return name, false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = p.next(); c == '\n' {
				return name, false
			}
		}
		name = append(name, byte(c))
	}
	return name, p.next() == ']'
}

// entry reads the rest of a key and its value and calls fn (get_value).
func (p *cfgParser) entry(name []byte, fn func(string, *string)) ([]byte, bool) {
	var c int
	for {
		c = p.next()
		if p.eof || !cfgKeyChar(c) {
			break
		}
		name = append(name, cfgLower(c))
	}
	for c == ' ' || c == '\t' {
		c = p.next()
	}
	var value *string
	if c != '\n' {
		if c != '=' {
			return name, false
		}
		v, ok := p.value()
		if !ok {
			return name, false
		}
		s := cString(v)
		value = &s
	}
	fn(cString(name), value)
	return name, true
}

// value reads a value after '=' (git's parse_value).
func (p *cfgParser) value() ([]byte, bool) {
	var v []byte
	quote, comment, spaces := false, false, 0
	for {
		c := p.next()
		if c == '\n' {
			return v, !quote
		}
		if comment {
			continue
		}
		if cfgSpace(c) && !quote {
			if len(v) > 0 {
				spaces++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		v = append(v, bytes.Repeat([]byte{' '}, spaces)...)
		spaces = 0
		switch c {
		case '\\':
			switch c = p.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return v, false
			}
			v = append(v, byte(c))
		case '"':
			quote = !quote
		default:
			v = append(v, byte(c))
		}
	}
}
