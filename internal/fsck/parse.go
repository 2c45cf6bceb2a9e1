package fsck

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/git-durable/git-durable/object"
)

// Parse builds Options from the value of `--strict=<list>` for a SHA-1
// repository; see ParseFor.
func Parse(list string) (*Options, error) { return ParseFor(list, object.SHA1) }

// ParseFor builds Options from the value of `--strict=<list>` as git 2.39's
// fsck_set_msg_types does, on top of the strict defaults. Items are separated
// by any of " ,|"; each is `<msg-id>=<error|warn|ignore>` (':' may stand for
// '='; ids are matched case-insensitively) or `skiplist=<file>`, a file of
// object names in format f, one a line, where '#' starts a comment and blank
// space around names is ignored. The errors carry git's texts (git prints
// them after "fatal: ").
func ParseFor(list string, f object.Format) (*Options, error) {
	o := Strict()
	for _, item := range strings.FieldsFunc(list, func(r rune) bool {
		return r == ' ' || r == ',' || r == '|'
	}) {
		eq := strings.IndexAny(item, "=:")
		key, val := item, ""
		if eq >= 0 {
			key, val = item[:eq], item[eq+1:]
		}
		key = asciiLower(key)
		if key == "skiplist" {
			if eq < 0 {
				return nil, fmt.Errorf("skiplist requires a path")
			}
			if err := o.readSkipList(val, f); err != nil {
				return nil, err
			}
			continue
		}
		if eq < 0 {
			return nil, fmt.Errorf("Missing '=': '%s'", key)
		}
		s, err := ParseSeverity(val)
		if err != nil {
			return nil, err
		}
		if err := o.SetSeverity(key, s); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// ParseSeverity reads a severity as a --strict list and fsck.<msg-id>
// settings give it: "error", "warn" or "ignore", with git's error text
// (git prints it after "fatal: ") for anything else.
func ParseSeverity(val string) (Severity, error) {
	switch val {
	case "error":
		return Error, nil
	case "warn":
		return Warn, nil
	case "ignore":
		return Ignore, nil
	}
	return Ignore, fmt.Errorf("Unknown fsck message type: '%s'", val)
}

// ReadSkipList adds the object names (format f) listed in the file at
// path to the skip list, as a `skiplist=<path>` item of a --strict list
// does, with git's error texts.
func (o *Options) ReadSkipList(path string, f object.Format) error { return o.readSkipList(path, f) }

// readSkipList adds the object names listed in the file at path to the skip
// list, as git's oidset_parse_file does.
func (o *Options) readSkipList(path string, f object.Format) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("could not open object name list: %s", path)
	}
	hexsz := 2 * f.Size()
	for len(data) > 0 {
		line := data
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line, data = data[:nl], data[nl+1:]
		} else {
			data = nil
		}
		// '#' starts a comment; git looks for it in the C string, so only
		// before any NUL.
		cstr := line
		if z := bytes.IndexByte(cstr, 0); z >= 0 {
			cstr = cstr[:z]
		}
		if h := bytes.IndexByte(cstr, '#'); h >= 0 {
			line = line[:h]
		}
		line = bytes.TrimFunc(line, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r'
		})
		if len(line) == 0 {
			continue
		}
		raw, ok := parseHex(line, 0, hexsz)
		if !ok || (len(line) > hexsz && line[hexsz] != 0) {
			return fmt.Errorf("invalid object name: %s", cString(line))
		}
		id, err := object.IDFromBytes(raw)
		if err != nil {
			return fmt.Errorf("invalid object name: %s", cString(line))
		}
		o.Skip(id)
	}
	return nil
}

// cString returns b up to its first NUL, as C would print it.
func cString(b []byte) string {
	if z := bytes.IndexByte(b, 0); z >= 0 {
		b = b[:z]
	}
	return string(b)
}

// parseHex decodes hexsz hex digits (either case) at b[pos:], as git's
// get_oid_hex does; ok is false if any is missing or not a hex digit.
func parseHex(b []byte, pos, hexsz int) (raw []byte, ok bool) {
	if pos < 0 || pos+hexsz > len(b) {
		return nil, false
	}
	raw = make([]byte, hexsz/2)
	for i := range raw {
		hi, lo := hexVal(b[pos+2*i]), hexVal(b[pos+2*i+1])
		if hi < 0 || lo < 0 {
			return nil, false
		}
		raw[i] = byte(hi<<4 | lo)
	}
	return raw, true
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
