package transport

import (
	"fmt"
	"strings"

	"github.com/git-durable/git-durable/internal/mask"
)

// checkEndpoint refuses an address that could turn into a second line of
// a request, with git's words: a control character anywhere. What a
// scheme's transport would take for an option is its own check (package
// stream).
func checkEndpoint(addr string) error {
	if i := strings.IndexFunc(addr, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		return fmt.Errorf("refusing a URL with a control character: '%s'", mask.Printable(Anonymize(addr)))
	}
	return nil
}

// URLDecode decodes the percent escapes of s as git's url_decode does: a
// "%" without two hex digits after it stays as it is, and so does "%00",
// which git never decodes (a C string cannot hold a NUL) — unless nul is
// set, to see s as Go's net/url decodes it.
func URLDecode(s string, nul bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			hi, okHi := HexDigit(s[i+1])
			lo, okLo := HexDigit(s[i+2])
			if v := hi<<4 | lo; okHi && okLo && (v != 0 || nul) {
				b.WriteByte(v)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
