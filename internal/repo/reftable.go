package repo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/object"
)

// readReftable reads the refs of the reftable stack in dir (git 2.45's
// reftable backend; the format is git's Documentation/technical/reftable):
// tables.list names the tables oldest first; each table's ref blocks hold
// its records, names sorted and prefix compressed; a newer table's record
// of a name (a deletion too) hides an older one's. It returns the value of
// every ref under refs/ that is not symbolic (its target is listed under
// its own name) — what git for-each-ref lists. A table it cannot read
// whole as git writes it (a torn or unknown one) is an error, never a
// partial answer.
func readReftable(dir string) ([]object.ID, error) {
	list, err := os.ReadFile(filepath.Join(dir, "tables.list"))
	if err != nil {
		return nil, err
	}
	refs := map[string]object.ID{}
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\n"), "\n") {
		if name == "" {
			continue
		}
		if strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
			return nil, fmt.Errorf("tables.list names %q", name)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		err = tableRefs(b, func(ref string, id object.ID, kind byte) {
			if kind == refDeletion || kind == refSymbolic {
				delete(refs, ref)
			} else {
				refs[ref] = id
			}
		})
		if err != nil {
			return nil, fmt.Errorf("reftable/%s: %w", name, err)
		}
	}
	ids := make([]object.ID, 0, len(refs))
	for name, id := range refs {
		if strings.HasPrefix(name, "refs/") {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// The value types of a ref record.
const (
	refDeletion = 0 // no value
	refOne      = 1 // the ref's object
	refPeeled   = 2 // the ref's object, then what it peels to
	refSymbolic = 3 // a length, then the target's name
)

// errTable says a table is not as git writes one.
var errTable = errors.New("not a reftable git writes")

// tableRefs calls fn with every ref record of the table b, in its order:
// the name, the value (a deletion or a symbolic ref: none) and its type.
func tableRefs(b []byte, fn func(name string, id object.ID, kind byte)) error {
	if len(b) < 24 || string(b[:4]) != "REFT" {
		return errTable
	}
	version := b[4]
	headerLen, footerLen, idLen := 24, 68, 20
	switch version {
	case 1:
	case 2:
		headerLen, footerLen = 28, 72
		if len(b) < headerLen {
			return errTable
		}
		switch string(b[24:28]) {
		case "sha1":
		case "s256":
			idLen = 32
		default:
			return errTable
		}
	default:
		return fmt.Errorf("reftable version %d", version)
	}
	if len(b) < headerLen+footerLen {
		return errTable
	}
	footer := b[len(b)-footerLen:]
	if !bytes.Equal(footer[:headerLen], b[:headerLen]) ||
		crc32.ChecksumIEEE(footer[:footerLen-4]) != binary.BigEndian.Uint32(footer[footerLen-4:]) {
		return errTable
	}
	blockSize := int(uint24(b[5:8]))
	end := len(b) - footerLen
	// The first block holds the header; its block_len and restart
	// offsets count from the start of the file.
	for start, at := 0, headerLen; at+4 <= end && b[at] == 'r'; {
		blockEnd := start + int(uint24(b[at+1:at+4]))
		if blockEnd > end || blockEnd < at+4+2 {
			return errTable
		}
		restarts := int(binary.BigEndian.Uint16(b[blockEnd-2 : blockEnd]))
		records := blockEnd - 2 - 3*restarts
		if restarts == 0 || records < at+4 {
			return errTable
		}
		if err := blockRefs(b[:records], at+4, idLen, fn); err != nil {
			return err
		}
		if blockSize > 0 {
			start += blockSize
		} else {
			start = blockEnd
		}
		at = start
	}
	return nil
}

// blockRefs reads the ref records of b from at to its end.
func blockRefs(b []byte, at, idLen int, fn func(string, object.ID, byte)) error {
	var name []byte
	for at < len(b) {
		prefix, n := varint(b[at:])
		if n == 0 {
			return errTable
		}
		at += n
		suffixType, n := varint(b[at:])
		if n == 0 {
			return errTable
		}
		at += n
		suffix, kind := suffixType>>3, byte(suffixType&7)
		if prefix > uint64(len(name)) || suffix > uint64(len(b)-at) {
			return errTable
		}
		name = append(name[:prefix], b[at:at+int(suffix)]...)
		at += int(suffix)
		if _, n = varint(b[at:]); n == 0 { // update_index_delta
			return errTable
		}
		at += n
		var id object.ID
		switch kind {
		case refDeletion:
		case refOne, refPeeled:
			size := idLen
			if kind == refPeeled {
				size *= 2
			}
			if len(b)-at < size {
				return errTable
			}
			var err error
			if id, err = object.IDFromBytes(b[at : at+idLen]); err != nil {
				return errTable
			}
			at += size
		case refSymbolic:
			l, n := varint(b[at:])
			if n == 0 || l > uint64(len(b)-at-n) {
				return errTable
			}
			at += n + int(l)
		default:
			return errTable
		}
		fn(string(name), id, kind)
	}
	return nil
}

// varint decodes git's offset varint (as ofs-delta's), returning the
// value and its length, 0 where b ends first or it overflows.
func varint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	v := uint64(b[0] & 0x7f)
	i := 0
	for b[i]&0x80 != 0 {
		i++
		if i >= len(b) || i > 9 {
			return 0, 0
		}
		v = ((v + 1) << 7) | uint64(b[i]&0x7f)
	}
	return v, i + 1
}

// uint24 is a big-endian three-byte number.
func uint24(b []byte) uint32 { return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) }
