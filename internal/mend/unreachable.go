package mend

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/git-durable/git-durable/internal/verify"
	"github.com/git-durable/git-durable/object"
	"github.com/git-durable/git-durable/pack"
)

// unreachable returns which of ids nothing reaches, as git fsck sees
// reachability: every ref, the reflogs, the index and the alternates'
// refs (git rev-list --objects), or nil where the walk fails (it met a
// broken object it must read): then each counts as reachable.
func (m *mender) unreachable(ids []object.ID) map[object.ID]bool {
	if len(ids) == 0 {
		return nil
	}
	out, err := m.git(m.ctx, nil, "rev-list", "--objects", "--no-object-names", "--all", "--reflog", "--indexed-objects", "--alternate-refs")
	if err != nil {
		return nil
	}
	left := make(map[object.ID]bool, len(ids))
	for _, id := range ids {
		left[id] = true
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() && len(left) > 0 {
		if id, err := object.ParseID(strings.TrimSpace(sc.Text())); err == nil {
			delete(left, id)
		}
	}
	return left
}

// kindOf says what a broken object was, where the damaged copy still
// tells: a packed entry's header (its type, or that it is a delta), a
// loose file's header.
func (m *mender) kindOf(d verify.Damage) string {
	if d.Pack == "" {
		if t := m.t.Store.LooseType(d.ID); t != object.Bad {
			return t.String()
		}
		return "object"
	}
	x, err := readIndex(d.Pack, m.r.Format)
	if err != nil {
		return "object"
	}
	off, ok := x.FindOffset(d.ID)
	f, err := os.Open(d.Pack)
	if !ok || err != nil {
		return "object"
	}
	defer f.Close()
	e, err := pack.NewFile(f, x, m.r.Format).HeaderAt(off)
	switch {
	case err != nil:
		return "object"
	case e.Type == object.OfsDelta || e.Type == object.RefDelta:
		return "delta"
	}
	return e.Type.String()
}

// sayUnreachable is the phrase of the broken objects no ref reaches that
// a mend left out, with their kinds.
func sayUnreachable(kinds map[object.ID]string) string {
	var s []string
	for id, k := range kinds {
		if len(s) == 3 {
			s = append(s, fmt.Sprintf("and %d more", len(kinds)-3))
			break
		}
		s = append(s, k+" "+id.String())
	}
	return fmt.Sprintf("left out %d broken %s that nothing reaches and the upstream does not have (%s)",
		len(kinds), plural(len(kinds), "object", "objects"), strings.Join(s, ", "))
}
