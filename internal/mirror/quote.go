package mirror

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// quotePath is a path as git shows an unusual one (quote.c quote_c_style,
// with core.quotePath off): as it is where it holds no control character,
// no '"' or '\' and is valid UTF-8; else in double quotes, with C escapes
// for those and octal ones for bytes that are not UTF-8. A log line shows
// one repository per line whatever its name, and two names never look
// alike.
func quotePath(s string) string {
	plain := utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool {
		return r < 0x20 || r == 0x7f || r == '"' || r == '\\'
	}) < 0
	if plain {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\%03o`, s[i])
		case r < 0x20 || r == 0x7f:
			if e, ok := cEscapes[byte(r)]; ok {
				b.WriteString(e)
			} else {
				fmt.Fprintf(&b, `\%03o`, r)
			}
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
	return b.String()
}

// cEscapes are the control characters quote_c_style writes as C escapes.
var cEscapes = map[byte]string{'\a': `\a`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`, '\v': `\v`}

// labelValue is a path as a label value of the metrics: valid UTF-8, as
// Prometheus' text format must be, and one value for one path, the same
// from run to run (series carried over from the last file keep their
// identity). A path that is valid UTF-8 and holds no '\' is itself; in any
// other, '\' is doubled and each byte that is not UTF-8 is written \xNN.
func labelValue(dir string) string {
	if utf8.ValidString(dir) && !strings.Contains(dir, `\`) {
		return dir
	}
	var b strings.Builder
	for i := 0; i < len(dir); {
		r, n := utf8.DecodeRuneInString(dir[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, dir[i])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(dir[i : i+n])
		}
		i += n
	}
	return b.String()
}

// plural is one or many, by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
