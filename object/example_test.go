package object_test

import (
	"errors"
	"fmt"

	"github.com/git-durable/git-durable/object"
)

// ExampleFormat_Sum computes the id of a blob in both formats, as
// git hash-object does.
func ExampleFormat_Sum() {
	for _, name := range []string{"sha1", "sha256"} {
		f, err := object.ParseFormat(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		id, err := f.Sum(object.Blob, []byte("hello\n"))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(f, id)
	}
	// Output:
	// sha1 ce013625030ba8dba906f756967f9e9ca394464a
	// sha256 2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4
}

// ExampleHasher computes an id from data that arrives in pieces: the size
// must be known up front, since it is part of the hashed header.
func ExampleHasher() {
	h := object.SHA1.NewHasher()
	h.Begin(object.Blob, 6)
	h.Write([]byte("hel"))
	h.Write([]byte("lo\n"))
	id, err := h.Sum()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(id)
	// Output:
	// ce013625030ba8dba906f756967f9e9ca394464a
}

// ExampleHeader shows the header that starts every object's hashed (and
// loose-stored) form.
func ExampleHeader() {
	fmt.Printf("%q\n", object.Header(nil, object.Blob, 6))
	// Output:
	// "blob 6\x00"
}

// ExampleParseID parses a hexadecimal id, and shows where its loose object
// lives and how a malformed id is reported.
func ExampleParseID() {
	id, err := object.ParseID("ce013625030ba8dba906f756967f9e9ca394464a")
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, rest := id.Shard()
	fmt.Println(id.Size(), "bytes; objects/"+dir+"/"+rest)

	raw, err := object.IDFromBytes(id.Bytes())
	fmt.Println(raw == id, err)

	_, err = object.ParseID("ce0136")
	fmt.Println(errors.Is(err, object.ErrBadID))
	// Output:
	// 20 bytes; objects/ce/013625030ba8dba906f756967f9e9ca394464a
	// true <nil>
	// true
}
