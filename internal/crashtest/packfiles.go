package crashtest

import (
	"bytes"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/pack"
)

// IsPackFile reports whether path is the final name of a pack's file
// (objects/pack/pack-<checksum>.pack, .idx, .rev, .keep or .promisor).
func IsPackFile(path string) bool { return packFile.MatchString(path) }

// tracked reports whether the walker checks the name p: an object or a
// pack file, but not what a repair set aside in the quarantine (damaged
// by definition).
func tracked(p string) bool {
	return (IsObject(p) || IsPackFile(p)) && !strings.Contains(p, "/durable-quarantine/")
}

// packSibling returns the name of the pack's file with extension ext.
func packSibling(p, ext string) string {
	return strings.TrimSuffix(p, filepath.Ext(p)) + "." + ext
}

// packWhy returns why the durable bytes of the pack file p are not what its
// name promises, or "". A .pack must be complete: its trailer is the hash
// of everything before it and names the pack. An .idx must be complete and
// describe that pack, and — the I-b of a kept pack — the .pack must be
// there and complete whenever the .idx, which makes it visible, is.
func (w *walker) packWhy(p string, data []byte) string {
	m := packFile.FindStringSubmatch(p)
	sum, _ := hex.DecodeString(m[1])
	f := formatOf(m[1])
	n := f.Size()
	switch m[2] {
	case "pack":
		if len(data) < 12+n || !bytes.HasPrefix(data, []byte("PACK")) {
			return "incomplete pack"
		}
		h := f.New()
		h.Write(data[:len(data)-n])
		if got := h.Sum(nil); !bytes.Equal(got, data[len(data)-n:]) || !bytes.Equal(got, sum) {
			return "pack does not match its trailer or name"
		}
	case "idx", "rev":
		if len(data) < 2*n {
			return "incomplete " + m[2]
		}
		h := f.New()
		h.Write(data[:len(data)-n])
		if !bytes.Equal(h.Sum(nil), data[len(data)-n:]) || !bytes.Equal(data[len(data)-2*n:len(data)-n], sum) {
			return m[2] + " does not match its checksum or its pack"
		}
		if m[2] == "idx" {
			if _, err := pack.ParseIndex(data, f); err != nil {
				return err.Error()
			}
			packName := packSibling(p, "pack")
			ino, ok := w.names[packName]
			if !ok {
				return "visible without its pack"
			}
			if why := w.why(packName, ino); why != "" {
				return "visible with a broken pack: " + why
			}
		}
	}
	return ""
}
