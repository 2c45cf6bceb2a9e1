package fsck

import (
	"bytes"
	"fmt"
)

// verifyHeaders checks that the header of a commit or tag ends either at a
// blank line or with the object's final newline and holds no NUL, as git's
// verify_headers does. It reports whether the object failed.
func verifyHeaders(r *reporter, b cbuf) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case 0:
			return r.report(msgNulInHeader, fmt.Sprintf("unterminated header: NUL at offset %d", i))
		case '\n':
			if i+1 < len(b) && b[i+1] == '\n' {
				return false
			}
		}
	}
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return false
	}
	return r.report(msgUnterminatedHeader, "unterminated header")
}

// oidLine checks that an object name in hex and a newline start at p. It
// returns where the next line starts. When the name is bad, git 2.39 leaves
// its position undefined (and may loop or crash if the message is not an
// error); here the line is skipped.
func oidLine(b cbuf, p, hexsz int) (next int, ok bool) {
	if _, good := parseHex(b, p, hexsz); good && b.at(p+hexsz) == '\n' {
		return p + hexsz + 1, true
	}
	for p < len(b) && b[p] != '\n' {
		p++
	}
	return p + 1, false
}

// checkCommit checks a commit as git 2.39's fsck_commit does: the tree line,
// parent lines, one author, the committer, and no NUL anywhere.
func checkCommit(r *reporter, data []byte, hexsz int) {
	b := cbuf(data)
	if verifyHeaders(r, b) {
		return
	}
	p := 0
	if !b.hasPrefixAt(p, "tree ") {
		r.report(msgMissingTree, "invalid format - expected 'tree' line")
		return
	}
	p, ok := oidLine(b, p+len("tree "), hexsz)
	if !ok && r.report(msgBadTreeSha1, "invalid 'tree' line format - bad sha1") {
		return
	}
	for b.hasPrefixAt(p, "parent ") {
		p, ok = oidLine(b, p+len("parent "), hexsz)
		if !ok && r.report(msgBadParentSha1, "invalid 'parent' line format - bad sha1") {
			return
		}
	}
	authors := 0
	for b.hasPrefixAt(p, "author ") {
		authors++
		var failed bool
		if p, failed = checkIdent(r, b, p+len("author ")); failed {
			return
		}
	}
	if authors < 1 {
		if r.report(msgMissingAuthor, "invalid format - expected 'author' line") {
			return
		}
	} else if authors > 1 {
		if r.report(msgMultipleAuthors, "invalid format - multiple 'author' lines") {
			return
		}
	}
	if !b.hasPrefixAt(p, "committer ") {
		r.report(msgMissingCommitter, "invalid format - expected 'committer' line")
		return
	}
	if _, failed := checkIdent(r, b, p+len("committer ")); failed {
		return
	}
	if bytes.IndexByte(data, 0) >= 0 {
		r.report(msgNulInCommit, "NUL byte in the commit object body")
	}
}
