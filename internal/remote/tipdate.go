package remote

import (
	"bytes"
	"strconv"

	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// maxPeel bounds the tags a tip's date is looked for through.
const maxPeel = 10

// tipDate returns the commit date of the tip id, as git's negotiators
// order tips by it: the committer's time of the commit a tag leads to (or
// of the commit itself); false where the store cannot read it or it leads
// to no commit.
func tipDate(s *loose.Store, id object.ID) (int64, bool) {
	for range maxPeel {
		t, data, err := s.Read(id)
		if err != nil {
			return 0, false
		}
		switch t {
		case object.Commit:
			return committerTime(data)
		case object.Tag:
			line, _, _ := bytes.Cut(data, []byte("\n"))
			hex, ok := bytes.CutPrefix(line, []byte("object "))
			if !ok {
				return 0, false
			}
			if id, err = object.ParseID(string(hex)); err != nil {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	return 0, false
}

// committerTime reads the time of a commit's committer line ("committer
// <name> <<email>> <time> <zone>"), in its header.
func committerTime(data []byte) (int64, bool) {
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		if len(line) == 0 {
			break // the header ends
		}
		rest, ok := bytes.CutPrefix(line, []byte("committer "))
		if !ok {
			continue
		}
		gt := bytes.LastIndexByte(rest, '>')
		if gt < 0 {
			return 0, false
		}
		fields := bytes.Fields(rest[gt+1:])
		if len(fields) == 0 {
			return 0, false
		}
		t, err := strconv.ParseInt(string(fields[0]), 10, 64)
		return t, err == nil
	}
	return 0, false
}
