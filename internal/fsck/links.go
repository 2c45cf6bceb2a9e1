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

// ErrMalformed is wrapped by the errors Links returns for data that git's
// object parsers refuse.
var ErrMalformed = errors.New("malformed object")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}

// Links returns the objects a commit (tree, parents), tree (entries;
// gitlinks with mode 160000 are NOT links), or tag (its object, with the
// tag's "type") refers to; blobs have none. It parses as git's
// parse_commit_buffer, tree walk and parse_tag_buffer do, so it refuses
// what makes git say "bogus commit object", "bad parents in commit",
// "unknown tag type" and the like. A tree entry whose mode is neither a
// directory, a file nor a symlink counts as a gitlink, as in git's walk.
// Malformed data returns an error wrapping ErrMalformed, never panics.
func Links(t object.Type, data []byte, f object.Format) ([]Link, error) {
	switch t {
	case object.Blob:
		return nil, nil
	case object.Tree:
		return treeLinks(data, f.Size())
	case object.Commit:
		return commitLinks(data, f.Size())
	case object.Tag:
		return tagLinks(data, f.Size())
	}
	return nil, fmt.Errorf("fsck: no links for %s objects", t)
}

func link(raw []byte, t object.Type) Link {
	id, _ := object.IDFromBytes(raw)
	return Link{ID: id, Type: t}
}

func treeLinks(data []byte, hashsz int) ([]Link, error) {
	var out []Link
	for pos := 0; pos < len(data); {
		e, why := decodeEntry(data[pos:], hashsz)
		if why != "" {
			return nil, malformed("%s", why)
		}
		pos += e.size
		switch e.mode & modeTypeMask {
		case modeDir:
			out = append(out, link(e.oid, object.Tree))
		case modeReg, modeSymlink:
			out = append(out, link(e.oid, object.Blob))
		}
	}
	return out, nil
}

func commitLinks(data []byte, hashsz int) ([]Link, error) {
	hexsz := 2 * hashsz
	treeLen := len("tree ") + hexsz
	if len(data) <= treeLen+1 || !bytes.HasPrefix(data, []byte("tree ")) || data[treeLen] != '\n' {
		return nil, malformed("bogus commit object")
	}
	raw, ok := parseHex(data, len("tree "), hexsz)
	if !ok {
		return nil, malformed("bad tree pointer in commit")
	}
	out := []Link{link(raw, object.Tree)}
	parentLen := len("parent ") + hexsz
	for p := treeLen + 1; p+parentLen < len(data) && bytes.HasPrefix(data[p:], []byte("parent ")); {
		raw, ok := parseHex(data, p+len("parent "), hexsz)
		if len(data) <= p+parentLen+1 || !ok || data[p+parentLen] != '\n' {
			return nil, malformed("bad parents in commit")
		}
		out = append(out, link(raw, object.Commit))
		p += parentLen + 1
	}
	return out, nil
}

func tagLinks(data []byte, hashsz int) ([]Link, error) {
	hexsz := 2 * hashsz
	if len(data) < hexsz+24 {
		return nil, malformed("tag too short")
	}
	raw, ok := parseHex(data, len("object "), hexsz)
	if !bytes.HasPrefix(data, []byte("object ")) || !ok || data[len("object ")+hexsz] != '\n' {
		return nil, malformed("bad 'object' line in tag")
	}
	p := len("object ") + hexsz + 1
	if !bytes.HasPrefix(data[p:], []byte("type ")) {
		return nil, malformed("no 'type' line in tag")
	}
	p += len("type ")
	nl := bytes.IndexByte(data[p:], '\n')
	if nl < 0 || nl >= 20 {
		return nil, malformed("bad 'type' line in tag")
	}
	typ := cString(data[p : p+nl]) // git compares it as a C string
	tt, ok := object.ParseType([]byte(typ))
	if !ok {
		return nil, malformed("unknown tag type '%s'", typ)
	}
	p += nl + 1
	if !(p+4 < len(data) && bytes.HasPrefix(data[p:], []byte("tag "))) {
		return nil, malformed("no 'tag' line in tag")
	}
	if bytes.IndexByte(data[p+4:], '\n') < 0 {
		return nil, malformed("unterminated 'tag' line in tag")
	}
	return []Link{link(raw, tt)}, nil
}
