package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/git-durable/git-durable/internal/gittest"
	"github.com/go-git/go-git/v6/plumbing/format/pktline"
)

// TestReadAdvertisement: what a v0 advertisement may hold, and the ways it
// can be broken.
func TestReadAdvertisement(t *testing.T) {
	oid2 := strings.Repeat("2", 40)
	read := func(b []byte) error {
		_, err := readAdvertisement(bufio.NewReader(bytes.NewReader(b)), nil)
		return err
	}
	ar, err := readAdvertisement(bufio.NewReader(bytes.NewReader(gittest.Advertisement(
		"version 1\n",
		oid1+" HEAD\x00multi_ack symref=HEAD:refs/heads/main\n",
		oid1+" refs/heads/main\n",
		oid2+" refs/tags/t\n",
		oid1+" refs/tags/t^{}\n",
		"shallow "+oid2+"\n",
	))), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ar.kept.Head == nil || ar.kept.Head.String() != oid1 || ar.kept.Refs["refs/heads/main"].String() != oid1 ||
		ar.kept.Refs["refs/tags/t"].String() != oid2 || ar.kept.Peeled["refs/tags/t"].String() != oid1 ||
		len(ar.shallows) != 1 || !ar.caps.Supports("multi_ack") {
		t.Errorf("decoded %+v", ar)
	}
	if err := read([]byte("0000")); !errors.Is(err, errEmptyAdvertisement) {
		t.Errorf("empty: %v", err)
	}
	var el *pktline.ErrorLine
	if err := read(gittest.Advertisement("ERR no such repository\n")); !errors.As(err, &el) || el.Text != "no such repository" {
		t.Errorf("ERR: %v", err)
	}
	full := gittest.Advertisement(oid1+" HEAD\x00multi_ack\n", oid1+" refs/heads/main\n")
	if err := read(full[:len(full)-4]); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("no flush: %v", err)
	}
	if err := read(full[:len(full)-10]); err == nil {
		t.Errorf("cut inside a line: no error")
	}
	for _, bad := range []string{oid1 + "refs/heads/x\n", "xyz refs/heads/x\n", strings.Repeat("G", 40) + " refs/heads/x\n", "shallow 12\n"} {
		if err := read(gittest.Advertisement(oid1+" HEAD\x00multi_ack\n", bad)); err == nil || !strings.HasPrefix(err.Error(), "protocol error: ") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// git reads an id's hex digits with hexval, upper case too.
	var l refList
	if _, err := ReadAdvertisement(bufio.NewReader(bytes.NewReader(gittest.Advertisement(oid1+" HEAD\x00multi_ack\n",
		strings.Repeat("A", 40)+" refs/heads/x\n"))), &l); err != nil || l.got[1] != strings.Repeat("a", 40)+" refs/heads/x" {
		t.Errorf("an id in upper case: %v %q", err, l.got)
	}
}
