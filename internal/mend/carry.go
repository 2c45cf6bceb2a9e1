package mend

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-durable/git-durable/batch"
	"github.com/git-durable/git-durable/loose"
	"github.com/git-durable/git-durable/object"
)

// carry gives the objects directory to (a new clone's) every object git
// could read in the repository of f that has does not hold, as a second
// name of the file that holds it (a hard link: the filesystem is one):
// each sound pack holding one, then each loose object not found broken —
// an object with a good copy anywhere is carried from there. A damaged
// pack is never carried: where it holds an object not found broken that
// is still lacking, or its index cannot be read, the reclone is refused
// (NotSwapped), as it would lose what the mend in place keeps; so it is
// where an object found broken is still lacking (the upstream did not send
// it: the mend in place says which, and whether anything reaches it). It
// returns how many objects only the repository held.
func carry(f *Findings, to string, has func(object.ID) bool) (int, error) {
	from := f.repo.ObjectDir
	damaged := map[string]bool{}
	brokenLoose := map[object.ID]bool{}
	for _, d := range f.Damage {
		switch {
		case d.Pack != "":
			damaged[d.Pack] = true
		case !d.ID.IsZero():
			brokenLoose[d.ID] = true
		}
	}
	c := &carrier{to: to, has: has, format: f.repo.Format, carried: map[object.ID]bool{}}
	entries, err := os.ReadDir(filepath.Join(from, "pack"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	var hurt []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "pack-") || !strings.HasSuffix(name, ".pack") {
			continue
		}
		p := filepath.Join(from, "pack", name)
		if damaged[p] {
			hurt = append(hurt, p)
			continue
		}
		if err := c.pack(p); err != nil {
			return 0, err
		}
	}
	if err := c.loose(from, brokenLoose); err != nil {
		return 0, err
	}
	broken := map[object.ID]bool{}
	for _, id := range f.Report.Broken() {
		broken[id] = true
	}
	for _, p := range hurt {
		idx, err := readIndex(p, c.format)
		if err != nil {
			return 0, &NotSwapped{fmt.Errorf("%s is damaged and its index cannot be read", filepath.Base(p))}
		}
		n := 0
		for i := range idx.Count() {
			if id := idx.ID(i); !c.there(id) && !broken[id] {
				n++
			}
		}
		if n > 0 {
			return 0, &NotSwapped{fmt.Errorf("%s is damaged and holds %d %s the upstream did not send", filepath.Base(p), n, plural(n, "object", "objects"))}
		}
	}
	left := 0
	for id := range broken {
		if !c.there(id) {
			left++
		}
	}
	if left > 0 {
		return 0, &NotSwapped{fmt.Errorf("the upstream did not send %d of the %d broken objects", left, len(broken))}
	}
	return c.n, nil
}

// carrier carries objects into a new clone's objects directory (carry).
type carrier struct {
	to      string
	has     func(object.ID) bool
	format  object.Format
	carried map[object.ID]bool // what the links made so far hold
	n       int                // of those, what has lacked
}

// there reports whether the new clone holds id.
func (c *carrier) there(id object.ID) bool { return c.has(id) || c.carried[id] }

// pack links the sound pack p and its companions into the new clone
// where it holds an object the clone lacks.
func (c *carrier) pack(p string) error {
	idx, err := readIndex(p, c.format)
	if err != nil {
		return fmt.Errorf("%s: %v", filepath.Base(p), err)
	}
	need := 0
	for i := range idx.Count() {
		if !c.there(idx.ID(i)) {
			need++
		}
	}
	if need == 0 {
		return nil
	}
	base := strings.TrimSuffix(p, ".pack")
	for _, ext := range []string{".pack", ".rev", ".mtimes", ".bitmap", ".keep", ".idx"} {
		err := os.Link(base+ext, filepath.Join(c.to, "pack", filepath.Base(base)+ext))
		if err != nil && (ext == ".pack" || ext == ".idx" || !errors.Is(err, fs.ErrNotExist)) {
			return err
		}
	}
	for i := range idx.Count() {
		c.carried[idx.ID(i)] = true
	}
	c.n += need
	return nil
}

// loose links each loose object of the objects directory from that the
// new clone lacks and that was not found broken (broken) into it.
func (c *carrier) loose(from string, broken map[object.ID]bool) error {
	store := loose.Open(batch.OS, from, loose.Options{Format: c.format})
	defer store.Close()
	ids, err := store.LooseIDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if c.there(id) || broken[id] {
			continue
		}
		name := id.String()
		fan := filepath.Join(c.to, name[:2])
		if err := os.Mkdir(fan, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := os.Link(filepath.Join(from, name[:2], name[2:]), filepath.Join(fan, name[2:])); err != nil {
			return err
		}
		c.carried[id] = true
		c.n++
	}
	return nil
}
