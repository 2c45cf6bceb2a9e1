package repo

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Config holds configuration entries in the order git reads them; for a
// single-valued key the last one wins, as in git.
type Config []Entry

// Entry is one configuration value. Key is git's canonical form: section and
// variable name lower-cased, subsection as written. NoValue marks a key
// written without "=", which git reads as true. Scope is where git found it
// (git config --show-scope's word: system, global, local, worktree,
// command), "" when not known.
type Entry struct {
	Key     string
	Value   string
	NoValue bool
	Scope   string
}

// parseList parses the output of `git config --list -z --show-scope`:
// "scope\0key\nvalue\0", or "scope\0key\0" for a key without a value.
func parseList(b []byte) Config {
	var c Config
	recs := bytes.Split(b, []byte{0})
	for i := 0; i+1 < len(recs); i += 2 {
		k, v, ok := bytes.Cut(recs[i+1], []byte{'\n'})
		c = append(c, Entry{Key: string(k), Value: string(v), NoValue: !ok, Scope: string(recs[i])})
	}
	return c
}

// Canonical returns git's canonical form of a key as a user writes it
// ("core.fsyncMethod" → "core.fsyncmethod", "http.https://x/.extraHeader" →
// "http.https://x/.extraheader").
func Canonical(key string) string {
	first := strings.IndexByte(key, '.')
	last := strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

// Get returns the last value of key.
func (c Config) Get(key string) (Entry, bool) {
	key = Canonical(key)
	for i := len(c) - 1; i >= 0; i-- {
		if c[i].Key == key {
			return c[i], true
		}
	}
	return Entry{}, false
}

// All returns every value of a multi-valued key, in order.
func (c Config) All(key string) []string {
	key = Canonical(key)
	var out []string
	for _, e := range c {
		if e.Key == key {
			out = append(out, e.Value)
		}
	}
	return out
}

// Has reports whether key is set.
func (c Config) Has(key string) bool {
	_, ok := c.Get(key)
	return ok
}

// Bool returns key as git's boolean (def when unset).
func (c Config) Bool(key string, def bool) (bool, error) {
	e, ok := c.Get(key)
	if !ok {
		return def, nil
	}
	if e.NoValue {
		return true, nil
	}
	if v, ok := ParseBool(e.Value); ok {
		return v, nil
	}
	return false, fmt.Errorf("bad boolean config value '%s' for '%s'", e.Value, e.Key)
}

// ParseBool parses git's boolean words: true/yes/on, false/no/off, the empty
// string (false) and integers (non-zero is true), case-insensitively.
func ParseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	if n, err := strconv.ParseInt(s, 0, 64); err == nil {
		return n != 0, true
	}
	return false, false
}

// Int returns key as git's integer with an optional k, m or g unit (binary
// multiples), or def when unset.
func (c Config) Int(key string, def int64) (int64, error) {
	e, ok := c.Get(key)
	if !ok {
		return def, nil
	}
	v, err := ParseInt(e.Value)
	if err != nil {
		return 0, fmt.Errorf("bad numeric config value '%s' for '%s': %v", e.Value, e.Key, err)
	}
	return v, nil
}

// ParseInt parses a number as git_parse_signed does: decimal (or 0x / 0
// prefixed), then an optional unit k, m or g.
func ParseInt(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("invalid unit")
	}
	factor := int64(1)
	switch strings.ToLower(s[len(s)-1:]) {
	case "k":
		factor, s = 1<<10, s[:len(s)-1]
	case "m":
		factor, s = 1<<20, s[:len(s)-1]
	case "g":
		factor, s = 1<<30, s[:len(s)-1]
	}
	v, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("out of range")
		}
		return 0, fmt.Errorf("invalid unit")
	}
	if v > 0 && v > (1<<63-1)/factor || v < 0 && v < -(1<<63-1)/factor {
		return 0, fmt.Errorf("out of range")
	}
	return v * factor, nil
}
