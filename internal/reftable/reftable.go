// Package reftable reads git's reftable ref storage (git 2.45 and later,
// git's Documentation/technical/reftable): the stack of tables that
// tables.list names, and each table's ref records.
package reftable

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

// Values reads the refs of the reftable stack in dir (a repository's
// reftable directory): tables.list names the tables oldest first; each
// table's ref blocks hold its records, names sorted and prefix
// compressed; a newer table's record of a name (a deletion too) hides an
// older one's. It returns the value of every ref under refs/ that is not
// symbolic (its target is listed under its own name) — what git
// for-each-ref lists. A table it cannot read whole as git writes it (a
// torn or unknown one) is an error, never a partial answer.
func Values(dir string) ([]object.ID, error) {
	names, err := Stack(os.ReadFile, dir)
	if err != nil {
		return nil, err
	}
	refs := map[string]object.ID{}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		err = Refs(b, func(ref string, id object.ID, kind Kind) {
			if kind == Deletion || kind == Symbolic {
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

// Stack returns the tables tables.list names in dir, oldest first, read
// with read; a name that is not a file of dir is an error.
func Stack(read func(string) ([]byte, error), dir string) ([]string, error) {
	list, err := read(filepath.Join(dir, "tables.list"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\n"), "\n") {
		if name == "" {
			continue
		}
		if strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." {
			return nil, fmt.Errorf("tables.list names %q", name)
		}
		names = append(names, name)
	}
	return names, nil
}

// Kind is a ref record's value type.
type Kind byte

// The value types of a ref record.
const (
	Deletion Kind = 0 // no value
	One      Kind = 1 // the ref's object
	Peeled   Kind = 2 // the ref's object, then what it peels to
	Symbolic Kind = 3 // a length, then the target's name
)

// ErrTable says a table is not as git writes one.
var ErrTable = errors.New("not a reftable git writes")

// Refs calls fn with every ref record of the table b, in its order: the
// name, the value (none for a deletion or a symbolic ref) and its kind.
// A table that is not whole as git writes one (its footer's CRC, every
// block and record in bounds) is an error, after fn saw the records
// before the damage.
func Refs(b []byte, fn func(name string, id object.ID, kind Kind)) error {
	if len(b) < 24 || string(b[:4]) != "REFT" {
		return ErrTable
	}
	version := b[4]
	headerLen, footerLen, idLen := 24, 68, 20
	switch version {
	case 1:
	case 2:
		headerLen, footerLen = 28, 72
		if len(b) < headerLen {
			return ErrTable
		}
		switch string(b[24:28]) {
		case "sha1":
		case "s256":
			idLen = 32
		default:
			return ErrTable
		}
	default:
		return fmt.Errorf("reftable version %d", version)
	}
	if len(b) < headerLen+footerLen {
		return ErrTable
	}
	footer := b[len(b)-footerLen:]
	if !bytes.Equal(footer[:headerLen], b[:headerLen]) ||
		crc32.ChecksumIEEE(footer[:footerLen-4]) != binary.BigEndian.Uint32(footer[footerLen-4:]) {
		return ErrTable
	}
	blockSize := int(uint24(b[5:8]))
	end := len(b) - footerLen
	// The first block holds the header; its block_len and restart
	// offsets count from the start of the file.
	for start, at := 0, headerLen; at+4 <= end && b[at] == 'r'; {
		blockEnd := start + int(uint24(b[at+1:at+4]))
		if blockEnd > end || blockEnd < at+4+2 {
			return ErrTable
		}
		restarts := int(binary.BigEndian.Uint16(b[blockEnd-2 : blockEnd]))
		records := blockEnd - 2 - 3*restarts
		if restarts == 0 || records < at+4 {
			return ErrTable
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
func blockRefs(b []byte, at, idLen int, fn func(string, object.ID, Kind)) error {
	var name []byte
	for at < len(b) {
		prefix, n := varint(b[at:])
		if n == 0 {
			return ErrTable
		}
		at += n
		suffixType, n := varint(b[at:])
		if n == 0 {
			return ErrTable
		}
		at += n
		suffix, kind := suffixType>>3, Kind(suffixType&7)
		if prefix > uint64(len(name)) || suffix > uint64(len(b)-at) {
			return ErrTable
		}
		name = append(name[:prefix], b[at:at+int(suffix)]...)
		at += int(suffix)
		if _, n = varint(b[at:]); n == 0 { // update_index_delta
			return ErrTable
		}
		at += n
		var id object.ID
		switch kind {
		case Deletion:
		case One, Peeled:
			size := idLen
			if kind == Peeled {
				size *= 2
			}
			if len(b)-at < size {
				return ErrTable
			}
			var err error
			if id, err = object.IDFromBytes(b[at : at+idLen]); err != nil {
				return ErrTable
			}
			at += size
		case Symbolic:
			l, n := varint(b[at:])
			if n == 0 || l > uint64(len(b)-at-n) {
				return ErrTable
			}
			at += n + int(l)
		default:
			return ErrTable
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
