package remote

import ()

// validRef reports whether name is a ref name the helper may print to git:
// under refs/ and well formed by git's check-ref-format rules. The helper
// protocol is line based, so a name the upstream chose is checked before it
// becomes a line: a '\n' inside it would let the upstream write answers to
// git's later commands ("lock <path>" makes git unlink a file; an empty line
// ends the list early).
//
// The rules (refs.c check_refname_format, no flags): no component empty or
// beginning with '.', none ending with ".lock"; no "..", no "@{"; no control
// character, DEL, space, '~', '^', ':', '?', '*', '[' or '\'; the name does
// not end with '/' or '.'. Requiring "refs/" is stricter
// than git's check of the advertisement, as git's fetch maps only names
// under refs/ anyway ("Ignoring funny ref").
func validRef[T string | []byte](name T) bool {
	const prefix = "refs/"
	if len(name) < len(prefix) || string(name[:len(prefix)]) != prefix || name[len(name)-1] == '.' {
		return false
	}
	start := 0
	for i := 0; i <= len(name); i++ {
		if i == len(name) || name[i] == '/' {
			if !validComponent(name[start:i]) {
				return false
			}
			start = i + 1
		}
	}
	return true
}

// validComponent checks one '/'-separated part of a ref name.
func validComponent[T string | []byte](c T) bool {
	const lock = ".lock"
	if len(c) == 0 || c[0] == '.' || (len(c) >= len(lock) && string(c[len(c)-len(lock):]) == lock) {
		return false
	}
	prev := byte(0)
	for i := 0; i < len(c); i++ {
		b := c[i]
		switch b {
		case ' ', '~', '^', ':', '?', '*', '[', '\\':
			return false
		case '.':
			if prev == '.' {
				return false
			}
		case '{':
			if prev == '@' {
				return false
			}
		}
		if b < 0x20 || b == 0x7f {
			return false
		}
		prev = b
	}
	return true
}
