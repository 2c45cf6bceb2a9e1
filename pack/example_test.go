package pack_test

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"

	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// Example reads a pack stream entry by entry. The pack, two blobs, is built
// by hand: the 12-byte header, each entry's header and zlib data, and the
// trailer, the SHA-1 of everything before it.
func Example() {
	p := []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x02") // version 2, 2 entries
	for _, data := range []string{"hello\n", "a second blob\n"} {
		p = pack.AppendEntryHeader(p, object.Blob, int64(len(data)))
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write([]byte(data))
		zw.Close()
		p = append(p, z.Bytes()...)
	}
	h := object.SHA1.New()
	h.Write(p)
	p = h.Sum(p)

	r := pack.NewReader(bytes.NewReader(p), pack.ReaderOptions{Format: object.SHA1})
	hdr, err := r.Header()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("version %d, %d entries\n", hdr.Version, hdr.Count)
	for {
		e, err := r.Next()
		if err == io.EOF {
			break // the trailer matched
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		data, err := io.ReadAll(r) // Read inflates the entry's data
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%v of %d bytes: %q\n", e.Type, e.Size, data)
	}
	fmt.Println("trailer verified:", bytes.Equal(r.Checksum(), p[len(p)-20:]))
	// Output:
	// version 2, 2 entries
	// blob of 6 bytes: "hello\n"
	// blob of 14 bytes: "a second blob\n"
	// trailer verified: true
}

// deflate returns the zlib stream of s, as a pack entry holds it.
func deflate(s string) []byte {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte(s))
	zw.Close()
	return z.Bytes()
}

// seal appends the SHA-1 trailer to the pack p.
func seal(p []byte) []byte {
	h := object.SHA1.New()
	h.Write(p)
	return h.Sum(p)
}

// ExampleRecoverable goes on past a broken entry, as git's unpack-objects
// -r does: the first blob declares 10 bytes but its data inflates to 3.
func ExampleRecoverable() {
	p := []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x02")
	p = append(pack.AppendEntryHeader(p, object.Blob, 10), deflate("abc")...)
	p = append(pack.AppendEntryHeader(p, object.Blob, 4), deflate("fine")...)
	p = seal(p)

	r := pack.NewReader(bytes.NewReader(p), pack.ReaderOptions{})
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err == nil {
			var data []byte
			data, err = io.ReadAll(r)
			if err == nil {
				fmt.Printf("%v %q\n", e.Type, data)
				continue
			}
		}
		fmt.Println(err, "- recoverable:", pack.Recoverable(err))
		if !pack.Recoverable(err) {
			return
		}
	}
	// Output:
	// pack: inflate returned 1 at offset 12 - recoverable: true
	// blob "fine"
}

// ExampleApplyDelta rebuilds an object from its base and a delta: copy the
// first 7 bytes of the base, then insert 7 new ones.
func ExampleApplyDelta() {
	base := []byte("hello, world\n")
	delta := []byte{
		13, 14, // base size, result size
		0x90, 7, // copy: offset 0 (no offset bytes), size 7
		7, 'g', 'o', 'p', 'h', 'e', 'r', '\n', // insert 7 bytes
	}
	baseSize, resultSize, _, err := pack.DeltaHeader(delta)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("base", baseSize, "result", resultSize)
	result, err := pack.ApplyDelta(nil, base, delta)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", result)
	// Output:
	// base 13 result 14
	// "hello, gopher\n"
}

// ExampleWriteIndex indexes a pack as it is read, the way git index-pack
// does, then finds an object in the pack through the index.
func ExampleWriteIndex() {
	p := []byte("PACK\x00\x00\x00\x02\x00\x00\x00\x02")
	for _, data := range []string{"hello\n", "a second blob\n"} {
		p = append(pack.AppendEntryHeader(p, object.Blob, int64(len(data))), deflate(data)...)
	}
	p = seal(p)

	r := pack.NewReader(bytes.NewReader(p), pack.ReaderOptions{CRC32: true})
	var entries []pack.IndexEntry
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		data, err := io.ReadAll(r)
		if err != nil {
			fmt.Println(err)
			return
		}
		id, err := object.SHA1.Sum(e.Type, data)
		if err != nil {
			fmt.Println(err)
			return
		}
		crc, err := r.CRC32()
		if err != nil {
			fmt.Println(err)
			return
		}
		entries = append(entries, pack.IndexEntry{ID: id, Offset: e.Offset, CRC32: crc})
	}
	pack.SortIndexEntries(entries)
	var idx bytes.Buffer
	if _, err := pack.WriteIndex(&idx, entries, r.Checksum(), object.SHA1); err != nil {
		fmt.Println(err)
		return
	}

	x, err := pack.ParseIndex(idx.Bytes(), object.SHA1)
	if err != nil {
		fmt.Println(err)
		return
	}
	hello, _ := object.ParseID("ce013625030ba8dba906f756967f9e9ca394464a")
	off, ok := x.FindOffset(hello)
	fmt.Println(x.Count(), "objects; hello at offset", off, ok)
	t, data, err := pack.NewFile(bytes.NewReader(p), x, object.SHA1).Object(hello)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v %q\n", t, data)
	// Output:
	// 2 objects; hello at offset 12 true
	// blob "hello\n"
}
