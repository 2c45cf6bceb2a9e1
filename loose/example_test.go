package loose_test

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// Example writes one object durably into an objects directory and reads it
// back. The policy syncs it with the batch method: a writeout before the
// rename, and one flush when the transaction ends (or, where that is not
// sound, the fsync fallback).
func Example() {
	dir, err := os.MkdirTemp("", "loose-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	objects := filepath.Join(dir, "objects")
	if err := os.Mkdir(objects, 0o777); err != nil {
		fmt.Println(err)
		return
	}

	s := loose.Open(batch.OS, objects, loose.Options{Format: object.SHA1})
	defer s.Close()
	p := batch.New(batch.OS, objects, batch.Options{Method: batch.Batch})

	data := []byte("hello\n")
	id, err := s.Format().Sum(object.Blob, data)
	if err != nil {
		fmt.Println(err)
		return
	}
	if need, err := s.Need(id); err != nil || !need {
		fmt.Println("not needed:", need, err)
		return
	}
	tx := p.Begin()
	if err := s.Write(tx, id, object.Blob, data); err != nil {
		fmt.Println(err)
		return
	}
	if err := tx.End(); err != nil { // the object is durable from here on
		fmt.Println(err)
		return
	}

	t, got, err := s.Read(id)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v %s: %q\n", t, id, got)
	d, rest := id.Shard()
	_, err = os.Stat(filepath.Join(objects, d, rest))
	fmt.Println("objects/"+d+"/"+rest, "exists:", err == nil)
	need, err := s.Need(id)
	fmt.Println("needed again:", need, err)
	// Output:
	// blob ce013625030ba8dba906f756967f9e9ca394464a: "hello\n"
	// objects/ce/013625030ba8dba906f756967f9e9ca394464a exists: true
	// needed again: false <nil>
}

// ExampleStore_WriteStream writes an object whose data comes from a reader,
// hashing it on the way; a second write of the same data finds the good copy
// and writes nothing.
func ExampleStore_WriteStream() {
	dir, err := os.MkdirTemp("", "loose-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	s := loose.Open(batch.OS, dir, loose.Options{})
	defer s.Close()
	p := batch.New(batch.OS, dir, batch.Options{Method: batch.Batch})
	for i := 0; i < 2; i++ {
		tx := p.Begin()
		id, wrote, err := s.WriteStream(tx, object.Blob, 6, strings.NewReader("hello\n"))
		if err != nil {
			fmt.Println(err)
		}
		if err := tx.End(); err != nil {
			fmt.Println(err)
		}
		fmt.Println(id, "written:", wrote)
	}
	// Output:
	// ce013625030ba8dba906f756967f9e9ca394464a written: true
	// ce013625030ba8dba906f756967f9e9ca394464a written: false
}

// ExampleDecode decodes the bytes of a loose object file:
// zlib("<type> <size>\x00" + data).
func ExampleDecode() {
	var raw bytes.Buffer
	zw := zlib.NewWriter(&raw)
	zw.Write(object.Header(nil, object.Blob, 6))
	zw.Write([]byte("hello\n"))
	zw.Close()

	t, data, err := loose.Decode(raw.Bytes())
	fmt.Printf("%v %q %v\n", t, data, err)

	_, _, err = loose.Decode(raw.Bytes()[:raw.Len()-1]) // truncated
	fmt.Println(err != nil)
	// Output:
	// blob "hello\n" <nil>
	// true
}

// ExampleParseHeader splits an inflated loose object into header and data.
func ExampleParseHeader() {
	t, size, rest, err := loose.ParseHeader([]byte("commit 11\x00tree 4b825d"))
	fmt.Printf("%v %d %q %v\n", t, size, rest, err)
	// Output:
	// commit 11 "tree 4b825d" <nil>
}
