package upstream

import (
	"github.com/git-durable/git-durable/internal/upstream/transport"
	"github.com/git-durable/git-durable/object"
)

// parseID reads the hex digits of an id of format f, in either case, as
// git's get_oid_hex reads an upstream's ids (advertisements, ls-refs,
// acknowledgements, shallow lines).
func parseID(b []byte, f object.Format) (object.ID, bool) {
	var raw [object.MaxIDSize]byte
	if len(b) != 2*f.Size() {
		return object.ID{}, false
	}
	for i := 0; i < len(b); i += 2 {
		hi, ok1 := transport.HexDigit(b[i])
		lo, ok2 := transport.HexDigit(b[i+1])
		if !ok1 || !ok2 {
			return object.ID{}, false
		}
		raw[i/2] = hi<<4 | lo
	}
	id, err := object.IDFromBytes(raw[:f.Size()])
	return id, err == nil
}

// parseIDPrefix reads an id of format f from the start of b, as git's
// parse_oid_hex does where a line goes on after the id (an
// acknowledgement's status), and returns what follows it.
func parseIDPrefix(b []byte, f object.Format) (object.ID, []byte, bool) {
	n := 2 * f.Size()
	if len(b) < n {
		return object.ID{}, nil, false
	}
	id, ok := parseID(b[:n], f)
	return id, b[n:], ok
}
