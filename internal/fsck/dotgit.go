package fsck

// This file holds the name tests git uses to keep trees from planting a
// ".git" (or a symlinked .gitmodules and friends) that some file system
// would see under another spelling: HFS+ ignores some Unicode code points
// and folds case; NTFS folds case, drops trailing dots and spaces, treats
// "name:stream" as name, and has 8.3 short names like "GIT~1".

// hfsChar decodes the next UTF-8 code point of the C string s at *i, as
// git's pick_one_utf8_char does, skipping the code points HFS+ ignores.
// It returns 0 at the end of the string and for malformed UTF-8.
func hfsChar(s cbuf, i *int) rune {
	for {
		c0 := s.at(*i)
		var r rune
		var n int
		switch {
		case c0 < 0x80:
			r, n = rune(c0), 1
		case s.at(*i+1)&0xc0 != 0x80:
			return 0
		case c0&0xe0 == 0xc0:
			r, n = rune(c0&0x1f)<<6|rune(s.at(*i+1)&0x3f), 2
			if r < 0x80 {
				return 0
			}
		case s.at(*i+2)&0xc0 != 0x80:
			return 0
		case c0&0xf0 == 0xe0:
			r, n = rune(c0&0x0f)<<12|rune(s.at(*i+1)&0x3f)<<6|rune(s.at(*i+2)&0x3f), 3
			if r < 0x800 || (r >= 0xd800 && r <= 0xdfff) || r == 0xfffe || r == 0xffff {
				return 0
			}
		case s.at(*i+3)&0xc0 != 0x80:
			return 0
		case c0&0xf8 == 0xf0:
			r, n = rune(c0&0x07)<<18|rune(s.at(*i+1)&0x3f)<<12|rune(s.at(*i+2)&0x3f)<<6|rune(s.at(*i+3)&0x3f), 4
			if r < 0x10000 || r > 0x10ffff {
				return 0
			}
		default:
			return 0
		}
		*i += n
		switch r {
		case 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
			0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff:
			continue
		}
		return r
	}
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isHFSDot reports whether HFS+ would see name as "." + needle (needle is
// lower-case ASCII), possibly followed by a '/'.
func isHFSDot(name []byte, needle string) bool {
	s, i := cbuf(name), 0
	if hfsChar(s, &i) != '.' {
		return false
	}
	for j := 0; j < len(needle); j++ {
		c := hfsChar(s, &i)
		if c > 127 || lowerASCII(byte(c)) != needle[j] {
			return false
		}
	}
	c := hfsChar(s, &i)
	return c == 0 || c == '/'
}

// isNTFSDotGit reports whether NTFS would see name as ".git" or its short
// name "git~1", as git's is_ntfs_dotgit does.
func isNTFSDotGit(name []byte) bool {
	s := cbuf(name)
	var i int
	switch lowerASCII(s.at(0)) {
	case '.':
		if lowerASCII(s.at(1)) != 'g' || lowerASCII(s.at(2)) != 'i' || lowerASCII(s.at(3)) != 't' {
			return false
		}
		i = 4
	case 'g':
		if lowerASCII(s.at(1)) != 'i' || lowerASCII(s.at(2)) != 't' || s.at(3) != '~' || s.at(4) != '1' {
			return false
		}
		i = 5
	default:
		return false
	}
	for ; ; i++ {
		c := s.at(i)
		if c == 0 || c == '/' || c == '\\' || c == ':' {
			return true
		}
		if c != '.' && c != ' ' {
			return false
		}
	}
}

// onlySpacesAndPeriods reports whether the C string s from i on holds only
// ' ' and '.' up to its end or a ':'.
func onlySpacesAndPeriods(s cbuf, i int) bool {
	for ; ; i++ {
		c := s.at(i)
		if c == 0 || c == ':' {
			return true
		}
		if c != ' ' && c != '.' {
			return false
		}
	}
}

// hasPrefixFold reports whether the C string s starts with the lower-case
// ASCII needle, ignoring ASCII case.
func hasPrefixFold(s cbuf, from int, needle string) bool {
	for j := 0; j < len(needle); j++ {
		if lowerASCII(s.at(from+j)) != needle[j] {
			return false
		}
	}
	return true
}

// isNTFSDot reports whether NTFS would see name as "." + needle, either
// spelled out or as an 8.3 short name: the first six letters of needle and
// "~1".."~4", or git's precomputed fall-back short name prefix (shortPrefix)
// followed by '~' and digits.
func isNTFSDot(name []byte, needle, shortPrefix string) bool {
	s := cbuf(name)
	if s.at(0) == '.' && hasPrefixFold(s, 1, needle) {
		return onlySpacesAndPeriods(s, len(needle)+1)
	}
	if hasPrefixFold(s, 0, needle[:6]) && s.at(6) == '~' && s.at(7) >= '1' && s.at(7) <= '4' {
		return onlySpacesAndPeriods(s, 8)
	}
	sawTilde := false
	i := 0
	for ; i < 8; i++ {
		c := s.at(i)
		switch {
		case c == 0:
			return false
		case sawTilde:
			if c < '0' || c > '9' {
				return false
			}
		case c == '~':
			i++
			if s.at(i) < '1' || s.at(i) > '9' {
				return false
			}
			sawTilde = true
		case i >= 6, c&0x80 != 0:
			return false
		case lowerASCII(c) != shortPrefix[i]:
			return false
		}
	}
	return onlySpacesAndPeriods(s, i)
}

func isDotGit(name []byte) bool { return isHFSDot(name, "git") || isNTFSDotGit(name) }

func isDotGitmodules(name []byte) bool {
	return isHFSDot(name, "gitmodules") || isNTFSDot(name, "gitmodules", "gi7eba")
}

func isDotGitattributes(name []byte) bool {
	return isHFSDot(name, "gitattributes") || isNTFSDot(name, "gitattributes", "gi7d29")
}

func isDotGitignore(name []byte) bool {
	return isHFSDot(name, "gitignore") || isNTFSDot(name, "gitignore", "gi250a")
}

func isDotMailmap(name []byte) bool {
	return isHFSDot(name, "mailmap") || isNTFSDot(name, "mailmap", "maba30")
}
