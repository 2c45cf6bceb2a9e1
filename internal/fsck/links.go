package fsck

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/git-durable/git-durable/object"
)

// Link is an object another object refers to, with the type the referrer
// says it has.
type Link struct {
	ID   object.ID
	Type object.Type
}

// ErrMalformed matches (errors.Is) every error Links returns for data
// that git's object parsers refuse.
var ErrMalformed = errors.New("malformed object")

// ParseError is the error Links returns for data git's object parsers
// refuse. git unpack-objects --strict parses each commit and tag as it
// receives it and, on such data, prints "error: " + GitMessage(id) (when
// not empty) and dies with "invalid commit" / "invalid tag". For a tree,
// git prints the tree parser's reason (also GitMessage) when it walks it.
type ParseError struct {
	Type object.Type
	// Partial is set for a tree whose entries parsed up to a bad one:
	// Links returns those entries with the error, and git's walk checks
	// them and carries on (only printing the error line). When the first
	// entry is bad, git's walk fails ("Error on reachable objects of").
	Partial bool
	// Reason says what is wrong.
	Reason string
	git    string // what git prints, followed by the id when named is set
	named  bool
}

// Error describes the problem without the object's id.
func (e *ParseError) Error() string { return "malformed " + e.Type.String() + ": " + e.Reason }

// Is makes errors.Is(err, ErrMalformed) true.
func (e *ParseError) Is(target error) bool { return target == ErrMalformed }

// GitMessage returns the line git prints (after "error: ") for the object
// id, or "" where git's parser fails without a word.
func (e *ParseError) GitMessage(id object.ID) string {
	if e.named {
		return e.git + id.String()
	}
	return e.git
}

// malformed returns a ParseError about which git says nothing.
func malformed(t object.Type, reason string) error { return &ParseError{Type: t, Reason: reason} }

// malformedNamed returns a ParseError git reports as gitPrefix + id.
func malformedNamed(t object.Type, reason, gitPrefix string) error {
	return &ParseError{Type: t, Reason: reason, git: gitPrefix, named: true}
}

// Links returns the objects a commit (tree, parents), tree (entries;
// gitlinks with mode 160000 are NOT links), or tag (its object, with the
// tag's "type") refers to; blobs have none. It parses as git's
// parse_commit_buffer, tree walk and parse_tag_buffer do, so it refuses
// what makes git say "bogus commit object", "bad parents in commit",
// "unknown tag type" and the like. A tree entry whose mode is neither a
// directory, a file nor a symlink counts as a gitlink, as in git's walk.
// Malformed data returns a *ParseError (matching ErrMalformed); Links
// never panics.
func Links(t object.Type, data []byte, f object.Format) ([]Link, error) {
	return AppendLinks(nil, t, data, f)
}

// AppendLinks is Links appending to dst, so that a caller that walks many
// objects can reuse one slice: it returns dst extended by the links, and
// on an error dst extended by those of a tree's entries before the bad
// one (dst itself for a commit or tag).
func AppendLinks(dst []Link, t object.Type, data []byte, f object.Format) ([]Link, error) {
	switch t {
	case object.Blob:
		return dst, nil
	case object.Tree:
		return treeLinks(dst, data, f.Size())
	case object.Commit:
		return commitLinks(dst, data, f.Size())
	case object.Tag:
		return tagLinks(dst, data, f.Size())
	}
	return dst, fmt.Errorf("fsck: no links for %s objects", t)
}

// appendLink appends the link to the object of raw id and type t, filled
// in place: a Link built and then appended is copied on its way, which in
// a clone's millions of tree entries costs more than the parse.
func appendLink(out []Link, raw []byte, t object.Type) []Link {
	out = append(out, Link{Type: t})
	out[len(out)-1].ID.SetBytes(raw)
	return out
}

// treeLinks lists a tree's links. An entry with one of the modes git
// writes takes a short path that reads the mode as a whole word; any other
// goes through decodeEntry, which takes apart and refuses what git does.
// A clone parses every entry of every tree it receives (millions for
// git.git), so the short path is most of its connectivity check.
func treeLinks(out []Link, data []byte, hashsz int) ([]Link, error) {
	return walkTree(out, data, hashsz, true)
}

// walkTree is treeLinks, with the short path only where short is set: its
// tests hold the two paths to the same answers.
func walkTree(out []Link, data []byte, hashsz int, short bool) ([]Link, error) {
	for pos := 0; pos < len(data); {
		buf := data[pos:]
		// decodeEntry's first check, on what is left of the tree: the
		// last entry's id is preceded by a NUL. The name then ends at or
		// before that NUL, and the id after it is whole.
		if short && len(buf) >= hashsz+3 && buf[len(buf)-(hashsz+1)] == 0 {
			if t, n := gitMode(buf); n > 0 && buf[n] != 0 {
				end := n + bytes.IndexByte(buf[n:], 0) + 1 + hashsz
				if t != object.Bad {
					out = appendLink(out, buf[end-hashsz:end], t)
				}
				pos += end
				continue
			}
		}
		e, why := decodeEntry(buf, hashsz)
		if why != "" {
			return out, &ParseError{Type: object.Tree, Partial: pos > 0, Reason: why, git: why}
		}
		pos += e.size
		if t, ok := linkType(e.mode); ok {
			out = appendLink(out, e.oid, t)
		}
	}
	return out, nil
}

// gitMode recognizes the start of a tree entry written by git: one of its
// five modes and the space after it. It returns what the entry links to
// (object.Bad for a gitlink) and the length of the mode and space, or 0
// when the entry is written otherwise.
func gitMode(b []byte) (object.Type, int) {
	if len(b) < 7 {
		return object.Bad, 0
	}
	switch string(b[:7]) {
	case "100644 ", "100755 ", "120000 ":
		return object.Blob, 7
	case "160000 ":
		return object.Bad, 7
	}
	if string(b[:6]) == "40000 " {
		return object.Tree, 6
	}
	return object.Bad, 0
}

// linkType is the type of object a tree entry of mode points at, where the
// entry is a link: a directory's tree, a file's or a symlink's blob; not a
// gitlink's commit, which lives in another repository.
func linkType(mode uint32) (object.Type, bool) {
	switch mode & modeTypeMask {
	case modeDir:
		return object.Tree, true
	case modeReg, modeSymlink:
		return object.Blob, true
	}
	return object.Bad, false
}

func commitLinks(dst []Link, data []byte, hashsz int) ([]Link, error) {
	hexsz := 2 * hashsz
	treeLen := len("tree ") + hexsz
	if len(data) <= treeLen+1 || !bytes.HasPrefix(data, []byte("tree ")) || data[treeLen] != '\n' {
		return dst, malformedNamed(object.Commit, "bogus commit object", "bogus commit object ")
	}
	raw, ok := parseHex(data, len("tree "), hexsz)
	if !ok {
		return dst, malformedNamed(object.Commit, "bad tree pointer", "bad tree pointer in commit ")
	}
	out := appendLink(dst, raw, object.Tree)
	parentLen := len("parent ") + hexsz
	for p := treeLen + 1; p+parentLen < len(data) && bytes.HasPrefix(data[p:], []byte("parent ")); {
		raw, ok := parseHex(data, p+len("parent "), hexsz)
		if len(data) <= p+parentLen+1 || !ok || data[p+parentLen] != '\n' {
			return dst, malformedNamed(object.Commit, "bad parents", "bad parents in commit ")
		}
		out = appendLink(out, raw, object.Commit)
		p += parentLen + 1
	}
	return out, nil
}

func tagLinks(dst []Link, data []byte, hashsz int) ([]Link, error) {
	hexsz := 2 * hashsz
	if len(data) < hexsz+24 {
		return dst, malformed(object.Tag, "too short")
	}
	raw, ok := parseHex(data, len("object "), hexsz)
	if !bytes.HasPrefix(data, []byte("object ")) || !ok || data[len("object ")+hexsz] != '\n' {
		return dst, malformed(object.Tag, "bad 'object' line")
	}
	p := len("object ") + hexsz + 1
	if !bytes.HasPrefix(data[p:], []byte("type ")) {
		return dst, malformed(object.Tag, "no 'type' line")
	}
	p += len("type ")
	nl := bytes.IndexByte(data[p:], '\n')
	if nl < 0 || nl >= 20 {
		return dst, malformed(object.Tag, "bad 'type' line")
	}
	typ := cString(data[p : p+nl]) // git compares it as a C string
	tt, ok := object.ParseType([]byte(typ))
	if !ok {
		return dst, malformedNamed(object.Tag, "unknown tag type '"+typ+"'", "unknown tag type '"+typ+"' in ")
	}
	p += nl + 1
	if !(p+4 < len(data) && bytes.HasPrefix(data[p:], []byte("tag "))) {
		return dst, malformed(object.Tag, "no 'tag' line")
	}
	if bytes.IndexByte(data[p+4:], '\n') < 0 {
		return dst, malformed(object.Tag, "unterminated 'tag' line")
	}
	return appendLink(dst, raw, tt), nil
}
