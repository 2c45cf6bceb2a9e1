package remote

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
)

// TestTapAdvertisement: the refs of a smart-HTTP advertisement go to the
// sink, and go-git is given the first ref with the capabilities, which it
// decodes to the same capabilities and HEAD.
func TestTapAdvertisement(t *testing.T) {
	refs := []string{
		oid1 + " HEAD\x00multi_ack side-band-64k symref=HEAD:refs/heads/main\n",
		oid1 + " refs/heads/main\n",
		oid1 + " refs/tags/v1\n",
		"shallow " + oid1 + "\n",
	}
	service := advertisement(t, "# service=git-upload-pack\n")
	for name, body := range map[string][]byte{
		"with service line": append(append([]byte{}, service...), advertisement(t, refs...)...),
		"refs only":         advertisement(t, refs...),
	} {
		var got []string
		short, err := tapAdvertisement(bufio.NewReader(bytes.NewReader(body)), func(_ *packp.AdvRefs, n []byte, id plumbing.Hash) error {
			got = append(got, id.String()+" "+string(n))
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := []string{oid1 + " HEAD", oid1 + " refs/heads/main", oid1 + " refs/tags/v1"}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: sink got %q", name, got)
		}
		ar := packp.NewAdvRefs()
		if err := ar.Decode(bytes.NewReader(short)); err != nil {
			t.Fatalf("%s: go-git cannot decode %q: %v", name, short, err)
		}
		if ar.Head == nil || ar.Head.String() != oid1 || !ar.Capabilities.Supports("side-band-64k") ||
			len(ar.Capabilities.Get("symref")) != 1 || len(ar.Shallows) != 1 || len(ar.References) > 1 {
			t.Errorf("%s: go-git got %+v from %q", name, ar, short)
		}
	}
	empty := append(append([]byte{}, service...), "0000"...)
	short, err := tapAdvertisement(bufio.NewReader(bytes.NewReader(empty)), func(*packp.AdvRefs, []byte, plumbing.Hash) error {
		t.Error("a ref from an empty advertisement")
		return nil
	})
	if err != nil || string(short) != string(empty) {
		t.Errorf("empty: %q, %v", short, err)
	}
	if _, err := tapAdvertisement(bufio.NewReader(bytes.NewReader(advertisement(t, "ERR gone\n"))), nil); err == nil || err.Error() != "gone" {
		t.Errorf("ERR: %v", err)
	}
}
