package reftable

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// appendVarint appends v as reftable's varint, which is the encoding of an
// OFS_DELTA's base distance.
func appendVarint(b []byte, v uint64) []byte { return pack.AppendOfsDistance(b, int64(v)) }

// testRecord is a ref record for buildTable.
type testRecord struct {
	name string
	kind Kind
	id   byte // the object id's bytes, all this value
}

// buildTable writes a version 1 reftable of records (sorted by name),
// unaligned (block_size 0) in blocks of at most perBlock records, each
// block's first record a restart: the form git's writer can choose and
// git's own tests read, but git does not write by default.
func buildTable(records []testRecord, perBlock int) []byte {
	header := []byte("REFT\x01\x00\x00\x00")
	header = binary.BigEndian.AppendUint64(header, 1)
	header = binary.BigEndian.AppendUint64(header, 1)
	out := append([]byte{}, header...)
	for len(records) > 0 {
		n := min(perBlock, len(records))
		start := 0
		if len(out) > len(header) {
			start = len(out)
		}
		block := []byte{'r', 0, 0, 0}
		restart := len(out) + len(block) - start
		var prev string
		for i, r := range records[:n] {
			prefix := 0
			if i > 0 {
				for prefix < len(prev) && prefix < len(r.name) && prev[prefix] == r.name[prefix] {
					prefix++
				}
			}
			block = appendVarint(block, uint64(prefix))
			block = appendVarint(block, uint64(len(r.name)-prefix)<<3|uint64(r.kind))
			block = append(block, r.name[prefix:]...)
			block = appendVarint(block, 0)
			switch r.kind {
			case One:
				block = append(block, bytes.Repeat([]byte{r.id}, 20)...)
			case Peeled:
				block = append(block, bytes.Repeat([]byte{r.id}, 40)...)
			case Symbolic:
				block = appendVarint(block, 10)
				block = append(block, "refs/heads"...)
			}
			prev = r.name
		}
		block = append(block, byte(restart>>16), byte(restart>>8), byte(restart))
		block = append(block, 0, 1)
		l := len(out) + len(block) - start
		block[1], block[2], block[3] = byte(l>>16), byte(l>>8), byte(l)
		out = append(out, block...)
		records = records[n:]
	}
	footer := append([]byte{}, header...)
	footer = append(footer, make([]byte, 40)...)
	footer = binary.BigEndian.AppendUint32(footer, crc32.ChecksumIEEE(footer))
	return append(out, footer...)
}

// TestTableRefsUnaligned: an unaligned table of several blocks, prefix
// compressed, with every value type, is read record by record.
func TestTableRefsUnaligned(t *testing.T) {
	var recs []testRecord
	for i := range 300 {
		recs = append(recs, testRecord{name: "refs/heads/branch-" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26)), kind: Kind(1 + i%3), id: byte(i)})
	}
	recs = append(recs, testRecord{name: "refs/tags/zzz", kind: Deletion})
	table := buildTable(recs, 37)
	var got []testRecord
	err := Refs(table, func(name string, id object.ID, kind Kind) {
		r := testRecord{name: name, kind: kind}
		if kind == One || kind == Peeled {
			r.id = id.Bytes()[0]
			if !bytes.Equal(id.Bytes(), bytes.Repeat([]byte{r.id}, 20)) {
				t.Errorf("%s: id %s", name, id)
			}
		}
		got = append(got, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("%d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if want := recs[i]; got[i].name != want.name || got[i].kind != want.kind || (want.kind == One || want.kind == Peeled) && got[i].id != want.id {
			t.Errorf("record %d: %+v, want %+v", i, got[i], want)
		}
	}
	for i := range 200 {
		if err := Refs(table[:len(table)-1-i*7], func(string, object.ID, Kind) {}); err == nil {
			t.Fatalf("cut by %d bytes: no error", 1+i*7)
		}
	}
}

// FuzzReftable: a table of any bytes is read or refused, never a panic
// or a read past its end.
func FuzzReftable(f *testing.F) {
	f.Add(buildTable([]testRecord{{"refs/heads/main", One, 1}, {"refs/heads/side", Peeled, 2}, {"refs/remotes/origin/HEAD", Symbolic, 0}}, 2))
	f.Add(buildTable([]testRecord{{"refs/tags/v1", Deletion, 0}}, 1))
	f.Add(buildTable(nil, 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		Refs(b, func(name string, id object.ID, kind Kind) {
			if kind > Symbolic {
				t.Fatalf("kind %d", kind)
			}
		})
	})
}
