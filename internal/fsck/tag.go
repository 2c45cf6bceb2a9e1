package fsck

import "bytes"

// checkTag checks a tag as git 2.39's fsck_tag does: the object, type and
// tag lines, the tagger ident, and nothing else in the header.
func checkTag(r *reporter, data []byte, hexsz int) {
	b := cbuf(data)
	if verifyHeaders(r, b) {
		return
	}
	p, ok := tagTarget(r, b, hexsz)
	if !ok {
		return
	}
	if !b.hasPrefixAt(p, "tag ") {
		r.report(msgMissingTagEntry, "invalid format - expected 'tag' line")
		return
	}
	p += len("tag ")
	eol := b.indexC(p, '\n')
	if eol < 0 {
		// git's text says 'type' here too.
		r.report(msgMissingTag, "invalid format - unexpected end after 'type' line")
		return
	}
	if name := b[p:eol]; !validRefname(append([]byte("refs/tags/"), name...)) {
		if r.report(msgBadTagName, "invalid 'tag' name: "+string(name)) {
			return
		}
	}
	p = eol + 1
	if !b.hasPrefixAt(p, "tagger ") {
		// early tags have no tagger: git only warns (info)
		if r.report(msgMissingTaggerEntry, "invalid format - expected 'tagger' line") {
			return
		}
	} else {
		// git goes on to the extra-header check even when the ident failed
		p, _ = checkIdent(r, b, p+len("tagger "))
	}
	if b.at(p) == 0 {
		return
	}
	if b.at(p) != '\n' {
		r.report(msgExtraHeaderEntry, "invalid format - extra header(s) after 'tagger'")
	}
}

// tagTarget checks the object and type lines of a tag; it returns where
// the next line starts, and false where fsck_tag stops.
func tagTarget(r *reporter, b cbuf, hexsz int) (int, bool) {
	if !b.hasPrefixAt(0, "object ") {
		r.report(msgMissingObject, "invalid format - expected 'object' line")
		return 0, false
	}
	p, ok := oidLine(b, len("object "), hexsz)
	if !ok && r.report(msgBadObjectSha1, "invalid 'object' line format - bad sha1") {
		return 0, false
	}
	if !b.hasPrefixAt(p, "type ") {
		r.report(msgMissingTypeEntry, "invalid format - expected 'type' line")
		return 0, false
	}
	p += len("type ")
	eol := b.indexC(p, '\n')
	if eol < 0 {
		r.report(msgMissingType, "invalid format - unexpected end after 'type' line")
		return 0, false
	}
	switch string(b[p:eol]) {
	case "commit", "tree", "blob", "tag":
	default:
		if r.report(msgBadType, "invalid 'type' value") {
			return 0, false
		}
	}
	return eol + 1, true
}

// validRefname reports whether git's check_refname_format(name, 0) accepts
// name: components separated by '/', none empty, none starting with '.' or
// ending with ".lock", no "..", no "@{", no control characters, space, or
// any of ":?[\\^~*", not "@", and not ending with '.'.
func validRefname(name []byte) bool {
	if string(name) == "@" {
		return false
	}
	components := 0
	for _, comp := range bytes.Split(name, []byte("/")) {
		if len(comp) == 0 || comp[0] == '.' || bytes.HasSuffix(comp, []byte(".lock")) {
			return false
		}
		var last byte
		for _, c := range comp {
			switch {
			case c < 0x20 || c == 0x7f:
				return false
			case c == ' ' || c == ':' || c == '?' || c == '[' || c == '\\' || c == '^' || c == '~' || c == '*':
				return false
			case c == '.' && last == '.':
				return false
			case c == '{' && last == '@':
				return false
			}
			last = c
		}
		components++
	}
	return name[len(name)-1] != '.' && components >= 2
}
