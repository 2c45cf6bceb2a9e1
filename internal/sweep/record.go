// Package sweep is the record of the remote helper's crash check (its
// sweep) of a repository's loose objects: that every one of them was read
// during a boot of the machine, and which were left broken. Only a crash
// breaks an object so, and a boot follows every crash: the first session
// of a boot checks, the later ones read the record. The helper writes it;
// git-remote-durable --check reads it to say whether the next fetch checks.
package sweep

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/internal/boot"
	"github.com/git-durable/git-durable/object"
)

// file, in the objects directory, is where the record is kept.
const file = "info/durable"

// Record is what the record of an objects directory says.
type Record struct {
	Boot   string      // the boot during which every loose object was checked (boot.ID)
	Broken []object.ID // the objects the check left broken
	// Types is what the header of each broken file still said.
	Types map[object.ID]object.Type
}

// ThisBoot reports whether the record says that every loose object was
// checked during the running boot, and so will not be again before the
// next; never where the system does not say which boot runs.
func (rec Record) ThisBoot() bool {
	now := boot.ID()
	return now != "" && rec.Boot == now
}

// Read reads the record of the objects directory objects; ids of another
// format than f are left out. Without a record, it returns an empty one
// and the error.
func Read(objects string, f object.Format) (Record, error) {
	rec := Record{Types: map[object.ID]object.Type{}}
	b, err := os.ReadFile(filepath.Join(objects, file))
	if err != nil {
		return rec, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), " ")
		switch key {
		case "boot":
			rec.Boot = val
		case "broken":
			hex, typ, _ := strings.Cut(val, " ")
			if id, err := object.ParseID(hex); err == nil && id.Size() == f.Size() {
				rec.Broken = append(rec.Broken, id)
				if t, ok := object.ParseType([]byte(typ)); ok {
					rec.Types[id] = t
				}
			}
		}
	}
	return rec, nil
}

// Write records that every loose object of the objects directory objects
// was checked during the running boot, and that the check left broken
// those of broken (types: what their headers still said). It replaces the
// record through a temporary file: never torn, and not synced, as a crash
// starts a new boot, whose first session checks again. A failure only
// means that the next session checks again; where the system does not say
// which boot runs, nothing is written.
func Write(objects string, broken []object.ID, types map[object.ID]object.Type) {
	rec := Record{Boot: boot.ID(), Broken: broken, Types: types}
	if rec.Boot == "" {
		return
	}
	var b strings.Builder
	b.WriteString("# git-remote-durable checked every loose object during this boot of the machine\n")
	fmt.Fprintf(&b, "boot %s\n", rec.Boot)
	for _, id := range rec.Broken {
		if t, ok := rec.Types[id]; ok && t != object.Bad {
			fmt.Fprintf(&b, "broken %s %s\n", id, t)
		} else {
			fmt.Fprintf(&b, "broken %s\n", id)
		}
	}
	path := filepath.Join(objects, file)
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "tmp_durable_")
	if err != nil {
		return
	}
	_, err = tmp.WriteString(b.String())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}
