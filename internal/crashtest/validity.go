package crashtest

import (
	"path/filepath"
	"strings"
)

// update re-checks the object name p. A name exempt from I-b (broken
// before the run) still counts as missing for I-a.
func (w *walker) update(p string) {
	if !tracked(p) {
		return
	}
	if strings.HasSuffix(p, ".pack") && IsPackFile(p) {
		defer w.update(packSibling(p, "idx")) // its validity depends on the pack's
	}
	why := ""
	ino, present := w.names[p]
	if present {
		why = w.why(p, ino)
	}
	if present && why != "" && !w.exempt[p] {
		w.bad[p] = why
	} else {
		delete(w.bad, p)
	}
	if w.expect[p] {
		switch {
		case !present:
			w.missing[p] = "absent"
		case why != "":
			w.missing[p] = why
		default:
			delete(w.missing, p)
		}
	}
}

// why returns why inode ino does not hold object p, or "" when it does.
func (w *walker) why(p string, ino int) string {
	d, ok := w.durable[ino]
	if !ok && w.model == MP {
		return "its data was never fsynced: empty or partial"
	} else if !ok && w.model == MA {
		return "no cache flush after a writeout of its data: empty or partial"
	} else if !ok {
		return "no writeout of its data before: empty or partial"
	}
	if IsPackFile(p) {
		b := w.data(ino)
		if d > int64(len(b)) {
			return "more bytes durable than known"
		}
		return w.packWhy(p, b[:d])
	}
	want := filepath.Base(filepath.Dir(p)) + filepath.Base(p)
	f := formatOf(want)
	key := [3]int64{int64(ino), d, int64(f)}
	id, ok := w.checked[key]
	if !ok {
		id = objectID(w.data(ino), d, f)
		w.checked[key] = id
	}
	if reason, bad := strings.CutPrefix(id, "!"); bad {
		return reason
	}
	if id != want {
		return "holds object " + id
	}
	return ""
}

// data returns what was written to ino: recorded, or read after the run.
func (w *walker) data(ino int) []byte {
	n := w.t.inodes[ino]
	if !n.unknown {
		return n.data
	}
	if b, ok := w.final[ino]; ok {
		return b
	}
	var b []byte
	if n.final != "" && w.content != nil {
		b, _ = w.content(n.final)
	}
	w.final[ino] = b
	return b
}
