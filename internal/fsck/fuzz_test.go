package fsck

import (
	"testing"

	"github.com/git-durable/git-durable/object"
)

// FuzzCheck feeds arbitrary data to Check as each object type (and as a
// .gitmodules/.gitattributes blob, then through Finish), to Links and to
// the config parser: none may panic, and every problem must be well formed.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"tree 4b825dc642cb6eb9a060e54bf8d69288fbd94904\nauthor A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nm\n",
		"object 4b825dc642cb6eb9a060e54bf8d69288fbd94904\ntype tree\ntag v1\ntagger A <a> 1 +0000\n\nm\n",
		"100644 .gitmodules\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14",
		"[submodule \"a\"]\n\turl = https://u:p@h/x\n\tpath = \"-\\tb\"\n",
		"tree zz\nparent 12\nauthor <\n",
		"",
	} {
		for typ := byte(1); typ <= 4; typ++ {
			f.Add(typ, false, []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, typ byte, sha256 bool, data []byte) {
		format := object.SHA1
		if sha256 {
			format = object.SHA256
		}
		tt := object.Type(typ % 8)
		// Demote what may be demoted, so that checking goes on past
		// problems and walks the recovery paths.
		lax := Strict()
		for _, id := range MsgIDs() {
			lax.SetSeverity(id, Warn)
		}
		for _, o := range []*Options{Strict(), lax} {
			id, _ := format.Sum(tt, data)
			check(t, o.Check(id, tt, data, format))
			check(t, o.Check(id, tt, data, format))
			Links(tt, data, format)

			// the data as a .gitmodules and .gitattributes blob
			bid, _ := format.Sum(object.Blob, data)
			hexid := bid.String()
			tr := rawTree("100644", ".gitattributes", hexid, "100644", ".gitmodules", hexid)
			tid, _ := format.Sum(object.Tree, tr)
			check(t, o.Check(tid, object.Tree, tr, format))
			check(t, o.Finish(func(object.ID) (object.Type, []byte, bool) { return object.Blob, data, true }))
			check(t, o.Check(tid, object.Tree, tr, format))
			check(t, o.TooLarge(bid))
		}
		parseConfig(data, func(string, *string) {})
	})
}

func check(t *testing.T, probs []Problem) {
	t.Helper()
	for _, p := range probs {
		if p.Severity != Warn && p.Severity != Error {
			t.Fatalf("problem with severity %v: %+v", p.Severity, p)
		}
		if _, ok := lookupMsg(p.MsgID); !ok || p.Text == "" || p.String() == "" || p.Stderr() == "" {
			t.Fatalf("malformed problem %+v", p)
		}
	}
}
